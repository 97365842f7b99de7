"""The BM25 baseline run of the release's dev queries, shipped as examples/bm25_dev.trec (rule bm25_dev_run).

It is the agent's own BM25 (irdata.retrieval.search.Searcher over the collection's BM25 index, with
the config's `retrieval.bm25` settings), run once per dev query on the query's text, so that a user
can check `evaluate.py` and their setup against a known ranking. TREC run lines
`query_id Q0 passage_id rank score bm25`, queries in ids/dev_all.txt order, ranks from 1 (ties broken
by passage id, as Searcher does); a query whose text tokenizes to nothing has no line.
"""

from __future__ import annotations

from ..atomic import atomic_open
from ..errors import InputError
from ..msmarco_inputs import read_queries
from ..shards import read_id_list
from ..stage import Stage, canonical

RUN_FILE = "examples/bm25_dev.trec"  # in the release folder
DEPTH = 100  # Recall@100 is the deepest measure evaluate.py reports
RUN_TAG = "bm25"

STAGE = Stage(
    name="bm25_dev_run",
    script="workflow_scripts/bm25_dev_run.py",
    settings=lambda config, **_: canonical({"bm25": config["retrieval"]["bm25"], "depth": DEPTH, "run_tag": RUN_TAG}),
)


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


def write_bm25_run(ids_path, queries_path, bm25_dir, out, settings: dict) -> dict:
    """Write the run to `out` atomically; return its counts (queries, queries with hits, lines)."""
    # imported here: bm25s is in the retrieval env only, and package.py and card.py (core env) read this module
    from ..retrieval.search import Searcher

    queries = query_texts(ids_path, queries_path)
    searcher = Searcher({"bm25": settings["bm25"]}, bm25_dir=bm25_dir)
    runs = searcher.bm25_batch([text for _, text in queries], k=settings["depth"])
    lines = with_hits = 0
    with atomic_open(out) as fh:
        for (query_id, _), hits in zip(queries, runs):
            with_hits += bool(len(hits))
            for passage_id, score, rank in hits:
                fh.write(f"{query_id} Q0 {passage_id} {rank} {score:.6f} {settings['run_tag']}\n")
                lines += 1
    return {"queries": len(queries), "queries_with_hits": with_hits, "lines": lines}
