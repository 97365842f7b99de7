"""The mine_negatives job: the retrieval layer's Searcher as the dense and lexical miners.

The miners search with `search` ({"bm25", "dense"}: eval44b.mining.bm25 / .dense over the retrieval
section), over the shared papers44b indexes when those settings are the retrieval section's, or over
indexes of their own (`build_miner_index`) when a config mines with other models than it scores.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from ..atomic import write_json_atomic, write_jsonl_atomic
from ..json_files import read_jsonl
from ..retrieval.search import Searcher
from .mining import mine
from .screen import Screen

log = logging.getLogger(__name__)


def searchers_from(searcher: Searcher) -> dict:
    """Miner name -> f(texts, k, exclude) -> list of key lists, best first."""

    def dense(texts, k, exclude):
        return [hits.ids.tolist() for hits in searcher.dense_batch(texts, k, exclude)]

    def lexical(texts, k, exclude):
        return [hits.ids.tolist() for hits in searcher.bm25_batch(texts, k, exclude)]

    return {"dense": dense, "lexical": lexical}


def index_recipe(searcher: Searcher) -> dict:
    """What the miners really ran on, for the manifest: index kinds and their build settings."""
    dense = searcher._dense.stored if searcher._dense is not None else {}
    bm25 = searcher._bm25.stored if searcher._bm25 is not None else {}
    return {
        "dense": {
            "index": dense.get("index"),
            "model": dense.get("model"),
            "ef_search": searcher.settings["dense"].get("ef_search"),
            "metric": "inner product of normalised embeddings"
            if searcher.settings["dense"].get("normalize")
            else "inner product",
        },
        "lexical": {
            "method": bm25.get("method"),
            **{k: bm25.get(k) for k in ("k1", "b", "stopwords", "stemmer")},
            "text": "title + '. ' + abstract",
        },
    }


def build_miner_index(*, kind: str, collection, index_files, index_dir, settings: dict, threads: int = 1) -> dict:
    """The index_44b_miner job: a miner's own index of the 44b collection (`index_files`, in `index_dir`), with
    the retrieval layer's builders (one encoding job)."""
    out_dir = index_dir
    if kind == "bm25":
        from ..retrieval.bm25 import build_bm25_index

        return build_bm25_index(collection, out_dir, settings, show_progress=False)
    if kind != "dense":
        raise ValueError(f"unknown miner index {kind!r}; expected bm25 or dense")
    import torch

    from ..retrieval.dense import build_dense_index, encode_passages
    from ..retrieval.faiss_lib import faiss

    torch.set_num_threads(threads)
    faiss.omp_set_num_threads(threads)
    with tempfile.TemporaryDirectory(prefix="encoded.", dir=Path(out_dir).parent) as tmp:
        npy, meta = Path(tmp) / "0000.npy", Path(tmp) / "0000.json"
        encode_passages(collection, npy, meta, shard=0, shards=1, settings=settings, show_progress=False)
        return build_dense_index(collection, [npy], [meta], out_dir, settings, show_progress=False)


def run_mining(*, queries, papers, bm25_index, dense_index, mined, report, settings: dict, bm25, dense) -> dict:
    """The mine_negatives job: mine the `queries` of one split against the `papers`, searching the BM25 and
    dense indexes in the folders `bm25` and `dense` (of the files `bm25_index`, `dense_index`) with
    settings["search"], as settings["mining"] says; write the `mined` rows and a `report`."""
    mining, search = settings["mining"], settings["search"]
    query_rows = read_jsonl(queries)
    paper_rows = {p["key"]: p for p in read_jsonl(papers)}
    screen = Screen(paper_rows, mining["title_threshold"], mining["title_normalisation"])
    searcher = Searcher(search, bm25_dir=bm25, dense_dir=dense)
    split_of = {key: p["split"] for key, p in paper_rows.items()}
    rows, counts = mine(query_rows, screen, searchers_from(searcher), mining, mining["batch_size"], split_of)
    counts["indexes"] = index_recipe(searcher)
    write_jsonl_atomic(mined, rows)
    write_json_atomic(report, counts)
    log.info(
        "%d of %d queries got %d clean negatives; %d lacking; by miner %s; screen %s",
        len(rows),
        len(query_rows),
        mining["negatives"],
        counts["queries_lacking_negatives"],
        counts["negatives_by_miner"],
        counts["screen"],
    )
    return counts
