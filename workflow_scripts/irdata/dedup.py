"""Train-query dedup of the Doubting MS MARCO card.

Texts are compared in lower case with punctuation removed (and whitespace runs collapsed, so that
removing "?" from "x ?" and from "x?" gives the same text). A train query whose text equals a
held-out (dev or test) query is excluded with reason `heldout`; one that repeats the text of an
earlier train query (file order) is excluded with reason `repeat`, the earlier one stays.
`heldout` takes precedence. Everything is columnar: 500k queries take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open, write_lines_atomic
from .msmarco_inputs import read_queries
from .sharding import sample_ids

REASON_HELDOUT = "heldout"
REASON_REPEAT = "repeat"
EXCLUDED_COLUMNS = ["query_id", "reason", "duplicate_of"]


def normalize_query_text(texts) -> pa.Array:
    """Lower case, Unicode punctuation (category P) removed, whitespace collapsed and trimmed."""
    text = pc.utf8_lower(texts)
    text = pc.replace_substring_regex(text, r"\p{P}+", "")
    text = pc.replace_substring_regex(text, r"[\s\p{Z}]+", " ")
    return pc.utf8_trim_whitespace(text)


@dataclass
class DedupResult:
    collection: list[str]        # kept train query ids, file order
    excluded: pd.DataFrame       # query_id, reason, duplicate_of
    n_assigned: int              # queries assigned for annotation (after the optional sample)


def dedup_train_queries(train: pa.Table, heldout: list[pa.Table], sample_size: int | None = None,
                        sample_seed: int = 0) -> DedupResult:
    """Dedup train queries (columns query_id, text) against held-out query tables, in their order."""
    train = train.filter(sample_ids(train.column("query_id").to_pylist(), sample_size, sample_seed))
    frame = pd.DataFrame({
        "query_id": train.column("query_id").to_pandas(),
        "key": normalize_query_text(train.column("text")).to_pandas(),
    })

    held = pd.concat(
        [pd.DataFrame({"query_id": t.column("query_id").to_pandas(),
                       "key": normalize_query_text(t.column("text")).to_pandas()}) for t in heldout],
        ignore_index=True,
    ) if heldout else pd.DataFrame({"query_id": pd.Series(dtype=str), "key": pd.Series(dtype=str)})
    first_heldout = held.drop_duplicates("key", keep="first").set_index("key")["query_id"]
    first_train = frame.drop_duplicates("key", keep="first").set_index("key")["query_id"]

    heldout_of = frame["key"].map(first_heldout)
    repeat_of = frame["key"].map(first_train).where(frame["key"].duplicated(keep="first"))

    is_heldout = heldout_of.notna()
    is_repeat = repeat_of.notna() & ~is_heldout
    excluded = pd.concat([
        pd.DataFrame({"query_id": frame["query_id"][is_heldout], "reason": REASON_HELDOUT,
                      "duplicate_of": heldout_of[is_heldout]}),
        pd.DataFrame({"query_id": frame["query_id"][is_repeat], "reason": REASON_REPEAT,
                      "duplicate_of": repeat_of[is_repeat]}),
    ]).sort_index(kind="stable")[EXCLUDED_COLUMNS].reset_index(drop=True)
    kept = frame["query_id"][~(is_heldout | is_repeat)].tolist()
    return DedupResult(collection=kept, excluded=excluded, n_assigned=len(frame))


def write_query_ids(train_queries, heldout_queries, dev_queries, collection_out, excluded_out, dev_out,
                    train_sample: int | None, dev_sample: int | None, seed_train: int = 0,
                    seed_dev: int = 0) -> dict:
    """Run the dedup on files and write ids/train_collection.txt, ids/train_excluded.tsv, ids/dev_all.txt."""
    train = read_queries(train_queries)
    heldout = [read_queries(p) for p in heldout_queries]
    result = dedup_train_queries(train, heldout, train_sample, seed_train)
    dev = read_queries(dev_queries)
    dev_ids = dev.filter(sample_ids(dev.column("query_id").to_pylist(), dev_sample, seed_dev)).column("query_id")

    write_lines_atomic(collection_out, result.collection)
    with atomic_open(excluded_out) as fh:
        result.excluded.to_csv(fh, sep="\t", index=False, lineterminator="\n")
    write_lines_atomic(dev_out, dev_ids.to_pylist())
    return {
        "assigned": result.n_assigned,
        "collection": len(result.collection),
        "excluded": result.excluded["reason"].value_counts().sort_index().to_dict(),
        "dev": len(dev_ids),
    }
