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

from pathlib import Path

import pyarrow.compute as pc
from pyarrow import csv

RUN_FILE = "examples/bm25_dev.trec"  # in the release folder
DEPTH = 100  # Recall@100 is the deepest measure evaluate.py reports
RUN_TAG = "bm25"


def run_counts(path) -> dict:
    """What the card says of the run file, counted from it: its lines, the queries with a line, how many of
    them reach DEPTH lines and the fewest lines of one (a query with fewer has fewer passages sharing a term)."""
    if not Path(path).stat().st_size:
        return {"depth": DEPTH, "lines": 0, "queries_with_lines": 0, "queries_at_depth": 0, "fewest_lines": None}
    table = csv.read_csv(path, read_options=csv.ReadOptions(column_names=["query_id", "q0", "passage_id", "rank",
                                                                           "score", "tag"]),
                         parse_options=csv.ParseOptions(delimiter=" "),
                         convert_options=csv.ConvertOptions(include_columns=["query_id"],
                                                            column_types={"query_id": "string"}))
    per_query = pc.value_counts(table.column("query_id")).field("counts")
    return {"depth": DEPTH, "lines": table.num_rows, "queries_with_lines": len(per_query),
            "queries_at_depth": pc.sum(pc.greater_equal(per_query, DEPTH)).as_py(),
            "fewest_lines": pc.min(per_query).as_py()}
