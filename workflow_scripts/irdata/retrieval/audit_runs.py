"""The workflow's own runs over the judged audit queries (rule audit_runs; what the audit does with them:
irdata.doubting.audit_ranking): BM25, dense and their RRF fusion from the collection's indexes with the
config's retrieval settings, `depth` passages a query, and a random run: `depth` passages drawn from the
whole collection, seeded by (seed, query), a run of no skill and a floor. (Shuffling only the judged
passages is no floor: on a small judged pool it ranks relevant passages higher than BM25 does.)
TREC run lines `query_id Q0 passage_id rank score tag`, queries in qrels order; a query whose text
tokenizes to nothing has no BM25 line.
"""

from __future__ import annotations

import hashlib

import numpy as np

from ..atomic import atomic_open
from ..errors import InputError
from ..query_files import read_queries
from ..tsv import read_trec_qrels
from .search import Searcher


def judged_queries(qrels_path, queries_path) -> list[tuple[str, str]]:
    """(query_id, text) of the qrels' queries in first-seen order."""
    judged = dict.fromkeys(read_trec_qrels(qrels_path).column("query_id").to_pylist())
    table = read_queries(queries_path)
    texts = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    missing = [q for q in judged if q not in texts]
    if missing:
        raise InputError(qrels_path, f"query {missing[0]!r} has no text in {queries_path} ({len(missing)} such)",
                         field="query_id")
    return [(q, texts[q]) for q in judged]


def random_ranking(query_id: str, ids, seed: int, depth: int) -> list[tuple[str, float]]:
    """`depth` passages of the collection `ids` (an index's IdMap, or an array) drawn without replacement by a
    generator seeded with (seed, query), in the order drawn, scored from 1 down."""
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(f"{seed}:{query_id}".encode()).digest()[:8], "big"))
    rows = rng.choice(len(ids), size=min(depth, len(ids)), replace=False)
    return [(str(p), 1 - i / len(rows)) for i, p in enumerate(ids.take(rows))]


def write_run(out, tag: str, rankings) -> int:
    """Write (query_id, [(passage_id, score), ...]) rankings as a TREC run; return its lines."""
    lines = 0
    with atomic_open(out) as fh:
        for query_id, ranking in rankings:
            for rank, (passage_id, score) in enumerate(ranking, start=1):
                fh.write(f"{query_id} Q0 {passage_id} {rank} {score:.6f} {tag}\n")
                lines += 1
    return lines


def write_audit_runs(*, qrels, queries, bm25, dense, bm25_run, dense_run, hybrid_rrf_run, random_run, settings: dict,
                     bm25_dir, dense_dir, threads: int | None = None) -> dict:
    """The audit_runs rule: write the runs `<name>_run` over the judged audit queries, searching the indexes (`bm25`,
    `dense`: their files) in `bm25_dir`, `dense_dir`; return their line counts."""
    out = {"bm25": bm25_run, "dense": dense_run, "hybrid_rrf": hybrid_rrf_run, "random": random_run}
    queries = judged_queries(qrels, queries)
    texts = [text for _, text in queries]
    searcher = Searcher(settings["search"], bm25_dir=bm25_dir, dense_dir=dense_dir, threads=threads)
    searcher.prepare(texts)
    depth = settings["depth"]
    hits = {"bm25": searcher.bm25_batch(texts, depth), "dense": searcher.dense_batch(texts, depth),
            "hybrid_rrf": searcher.hybrid_batch(texts, depth, depth)}
    counts = {}
    for name, runs in hits.items():
        counts[name] = write_run(out[name], name, [(q, [(p, s) for p, s, _ in h]) for (q, _), h in zip(queries, runs)])
    counts["random"] = write_run(out["random"], "random", [(q, random_ranking(q, searcher.ids, settings["seed"], depth))
                                                           for q, _ in queries])
    return counts
