"""Queries: an official review's summary or a meta-review's metareview, long enough to be a query."""

from __future__ import annotations

from collections import Counter

from ..atomic import write_json_atomic, write_jsonl_atomic
from ..json_files import read_jsonl
from .split import SPLITS

QUERY_FIELDS = ("note_id", "note_url", "kind", "paper", "split", "text")


def select_queries(reviews, min_chars: int = 200):
    """(queries, dropped): a review is a query when its stripped summary has at least `min_chars` characters."""
    queries, dropped = [], Counter()
    for review in reviews:
        text = " ".join(review["summary"].split())
        if len(text) < min_chars:
            dropped[review["split"]] += 1
            continue
        queries.append(
            {
                "note_id": review["note_id"],
                "note_url": review["note_url"],
                "kind": review["kind"],
                "paper": review["paper"],
                "split": review["split"],
                "text": text,
            }
        )
    return queries, dropped


def write_queries(*, reviews, train, val, test, report, settings: dict) -> dict:
    """The select_queries job: each split's queries from the split `reviews`, written to `train`, `val` and
    `test`, and a `report`."""
    min_chars = settings["min_chars"]
    queries, dropped = select_queries(read_jsonl(reviews), min_chars)
    counts = {"min_query_chars": min_chars, "queries": {}, "too_short": {}, "kinds": {}}
    out_paths = {"train": train, "val": val, "test": test}
    for split in SPLITS:
        rows = [q for q in queries if q["split"] == split]
        write_jsonl_atomic(out_paths[split], rows)
        counts["queries"][split] = len(rows)
        counts["too_short"][split] = dropped.get(split, 0)
        counts["kinds"][split] = dict(sorted(Counter(q["kind"] for q in rows).items()))
    write_json_atomic(report, counts)
    return counts
