"""The BM25 baseline run of the release's dev queries, shipped as examples/bm25_dev.trec (rule bm25_dev_run).

It is the agent's own BM25 (irdata.retrieval.search.Searcher over the collection's BM25 index, with
the config's `retrieval.bm25` settings), run once per dev query on the query's text, so that a user
can check `evaluate.py` and their setup against a known ranking. TREC run lines
`query_id Q0 passage_id rank score bm25`, queries in ids/dev_all.txt order, ranks from 1 (ties broken
by passage id, as Searcher does); a query whose text tokenizes to nothing has no line.
The run itself: irdata.retrieval.baseline_run (the retrieval env; this module is read by the card and
package in the core env).
"""

from __future__ import annotations

from ..stage import Stage, canonical

RUN_FILE = "examples/bm25_dev.trec"  # in the release folder
DEPTH = 100  # Recall@100 is the deepest measure evaluate.py reports
RUN_TAG = "bm25"

STAGE = Stage(
    name="bm25_dev_run",
    script="workflow_scripts/bm25_dev_run.py",
    settings=lambda config, **_: canonical({"bm25": config["retrieval"]["bm25"], "depth": DEPTH, "run_tag": RUN_TAG}),
)
