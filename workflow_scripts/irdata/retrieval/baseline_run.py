"""The BM25 baseline run of the dev queries for the Doubting release's examples/ (rule bm25_dev_run; its
settings and format: irdata.doubting.baseline_run)."""

from __future__ import annotations

from ..atomic import atomic_open
from ..errors import InputError
from ..query_files import read_queries
from ..shards import read_id_list
from .search import Searcher


def query_texts(ids_path, queries_path) -> list[tuple[str, str]]:
    """(query_id, text) of every id of `ids_path`, in its order, from the queries TSV."""
    table = read_queries(queries_path)
    texts = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    ids = read_id_list(ids_path)
    missing = [q for q in ids if q not in texts]
    if missing:
        raise InputError(queries_path, f"{len(missing)} dev query ids of {ids_path} have no text here, "
                         f"e.g. {missing[:3]}")
    return [(q, texts[q]) for q in ids]


def write_bm25_run(*, dev_all, queries, bm25, run, settings: dict, bm25_dir) -> dict:
    """The bm25_dev_run rule: the run of the `dev_all` queries over the BM25 index (`bm25`: its files) in
    `bm25_dir`, written to `run` atomically; return its counts (queries, queries with hits, lines)."""
    dev_queries = query_texts(dev_all, queries)
    searcher = Searcher({"bm25": settings["bm25"]}, bm25_dir=bm25_dir)
    runs = searcher.bm25_batch([text for _, text in dev_queries], k=settings["depth"])
    lines = with_hits = 0
    with atomic_open(run) as fh:
        for (query_id, _), hits in zip(dev_queries, runs):
            with_hits += bool(len(hits))
            for passage_id, score, rank in hits:
                fh.write(f"{query_id} Q0 {passage_id} {rank} {score:.6f} {settings['run_tag']}\n")
                lines += 1
    return {"queries": len(dev_queries), "queries_with_hits": with_hits, "lines": lines}
