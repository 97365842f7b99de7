"""Zero-shot evaluation of a bi-encoder: full retrieval over a collection, scored with the release's own
evaluate code (examples/evaluate.py, which agrees with ir_measures).

The passages are encoded in row-range shards (irdata.retrieval.dense.encode_passages, as for the workflow's
dense index) and merged into the index kind the retrieval settings give the collection's size
(dense.build_faiss: exact inner product below hnsw_threshold passages, HNSW or a compressed kind above).
Each query's top `depth` passages form the run (ties broken by row = id order). On CPU with a fixed thread
count the vectors, the run and the scores are byte-identical from run to run.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..doubting.examples.evaluate import MEASURES, evaluate
from ..retrieval.common import rank_rows
from ..retrieval.dense import build_faiss, index_kind, search_params

DEPTH = 100


def encode_queries(model, texts: list[str], batch_size: int, normalize: bool) -> np.ndarray:
    if not texts:
        return np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
    return model.encode_query(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=normalize,
                              show_progress_bar=False).astype(np.float32, copy=False)


def retrieve(arrays: list[np.ndarray], passage_ids: list[str], query_ids: list[str], query_vectors: np.ndarray,
             settings: dict, depth: int = DEPTH) -> tuple[dict, str]:
    """(run {qid: {pid: score}}, index kind) of the queries over the passages' shards (dense settings:
    the index kinds and their search efforts)."""
    n = sum(len(a) for a in arrays)
    if n != len(passage_ids):
        raise ValueError(f"{n} passage vectors for {len(passage_ids)} ids")
    kind = index_kind(n, settings)
    index = build_faiss(arrays, settings, show_progress=False)
    fetch = min(depth, n)
    scores, rows = index.search(np.ascontiguousarray(query_vectors), fetch,
                                params=search_params(index, kind, settings, fetch))
    run = {}
    for qid, query_scores, query_rows in zip(query_ids, scores, rows):
        keep = query_rows >= 0
        top_rows, top = rank_rows(query_rows[keep], query_scores[keep], depth)
        run[qid] = {passage_ids[int(r)]: float(s) for r, s in zip(top_rows, top)}
    return run, kind


def score_run(qrels: dict, run: dict, min_rel: int = 2) -> dict:
    """{"mean": {measure: value, "queries": n}, "per_query": {qid: {measure: value}}}, the release's evaluate."""
    per_query: dict = {}
    result = evaluate(qrels, run, min_rel, per_query)
    return {"mean": {m: result[m] for m in MEASURES} | {"queries": result["queries"]},
            "per_query": dict(sorted(per_query.items()))}


def qrels_dict(path) -> dict:
    """TREC qrels as {qid: {pid: grade}} (an empty file, a build without strict pairs, is no query)."""
    from ..tsv import read_trec_qrels

    if Path(path).stat().st_size == 0:
        return {}
    table = read_trec_qrels(path)
    qrels: dict = {}
    for q, p, g in zip(*(table.column(c).to_pylist() for c in ("query_id", "passage_id", "relevance"))):
        qrels.setdefault(q, {})[p] = g
    return qrels


def evaluate_model(store, npy_paths, meta_paths, queries: dict, qrels_sets: dict, settings: dict) -> dict:
    """The downstream_evaluate job's result: full retrieval of the queries judged in any of `qrels_sets`
    ({name: (qrels, min_rel)}) over the collection's encoded shards, scored per set.

    settings: encode (the encoding settings, whose model encodes the queries), index (the dense index
    settings), query_chars."""
    import torch

    from ..passage_store import open_store
    from ..retrieval.dense import load_model, merge_shards, model_settings
    from ..truncation import truncate

    encode = settings["encode"]
    torch.set_num_threads(encode["threads"])
    store = open_store(store)
    asked = model_settings(encode)
    arrays = merge_shards(list(npy_paths), list(meta_paths), len(store), store.ids_sha256, asked)
    judged = sorted({q for qrels, _ in qrels_sets.values() for q in qrels})
    missing = [q for q in judged if q not in queries]
    if missing:
        raise ValueError(f"{len(missing)} judged queries have no text, e.g. {missing[:3]}")
    model = load_model(encode)
    model.eval()
    with torch.no_grad():
        vectors = encode_queries(model, [truncate(queries[q], settings["query_chars"]) for q in judged],
                                 encode["batch_size"], encode["normalize"])
    run, kind = retrieve(arrays, store.ids.to_pylist(), judged, vectors, settings["index"])
    return {"model": encode["model"], "model_sha256": asked["model_sha256"], "index": kind, "passages": len(store),
            "sets": {name: {**score_run(qrels, run, min_rel), "min_rel": min_rel}
                     for name, (qrels, min_rel) in sorted(qrels_sets.items())}}


def run_evaluation(*, queries, store, embeddings, meta, result, qrels_sets: dict, settings: dict, model=None,
                   training=None, **qrels) -> dict:
    """The downstream_evaluate job: evaluate_model of the collection `store`, encoded in the shards
    `embeddings` and `meta`, on the `queries` (TSV) judged in each set's qrels file (`qrels`, by the set names of
    `qrels_sets` {name: lowest relevant grade}); write the `result` and return it. `model` and `training`: a
    trained model's files and report (the model settings["encode"] names), none for a base model."""
    from ..atomic import write_json_atomic
    from ..tsv import read_id_text_tsv

    table = read_id_text_tsv(queries, "query_id", "text")
    texts = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    # the release's strict dev qrels count grade >= 2 (all are 3), the official and BEIR ones relevance >= 1
    sets = {name: (qrels_dict(qrels[name]), min_rel) for name, min_rel in qrels_sets.items()}
    evaluated = evaluate_model(store, embeddings, meta, texts, sets, settings)
    write_json_atomic(result, evaluated)
    return evaluated
