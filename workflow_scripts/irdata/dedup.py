"""Train-query dedup of the Doubting MS MARCO card.

Texts are compared in lower case with punctuation removed (and whitespace runs collapsed, so that
removing "?" from "x ?" and from "x?" gives the same text). A train query whose text equals a
held-out (dev or test) query is excluded with reason `heldout`; one that repeats the text of an
earlier train query (file order) is excluded with reason `repeat`, the earlier one stays.
`heldout` takes precedence. Everything is columnar: 500k queries take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open, write_lines_atomic
from .msmarco_inputs import read_queries
from .shards import sample_ids
from .tsv import normalize_query_text, read_id_text_tsv

REASON_HELDOUT = "heldout"
REASON_REPEAT = "repeat"
EXCLUDED_COLUMNS = ["query_id", "reason", "duplicate_of"]


def sample_settings(config: dict) -> dict:
    """Each split's sample size (None: every query, also when config `queries` is `all`) and seed, and
    whether the train sample takes the duplicates in."""
    d, sampled = config["doubting"], config["queries"] == "sample"
    return {"train_sample": d["train_sample"]["size"] if sampled else None,
            "dev_sample": d["dev_sample"]["size"] if sampled else None,
            "train_seed": d["train_sample"]["seed"], "dev_seed": d["dev_sample"]["seed"],
            "train_with_duplicates": d["train_sample"]["with_duplicates"] and sampled}


def read_heldout_queries(path) -> pa.Table:
    """A held-out query file (`qid<TAB>text`) as the dedup reads it: an id may repeat with another text (the
    checked held-out queries of a BEIR folder, irdata/beir_inputs.py), since only texts are compared."""
    return read_id_text_tsv(path, "query_id", "text", unique=False)


@dataclass
class DedupResult:
    collection: list[str]        # kept train query ids, file order
    excluded: pd.DataFrame       # query_id, reason, duplicate_of
    n_assigned: int              # queries assigned for annotation (after the optional sample)


def _first_index_per_code(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """For each code, the index of its first occurrence in `codes` (-1 where absent)."""
    first = np.full(n_codes, -1, dtype=np.int64)
    unique, index = np.unique(codes, return_index=True)
    first[unique] = index
    return first


def _duplicates(train: pa.Table, heldout: list[pa.Table]):
    """(is_heldout, is_repeat, duplicate_of, first_train) of each train query, by the module's rules;
    first_train: the index of the first train query with its text."""
    train_ids = train.column("query_id").to_numpy(zero_copy_only=False)
    heldout_ids = np.concatenate([t.column("query_id").to_numpy(zero_copy_only=False) for t in heldout]
                                 + [np.array([], dtype=object)])
    # One dictionary over train and held-out texts turns text equality into integer equality.
    keys = pa.chunked_array([normalize_query_text(train.column("text"))]
                            + [normalize_query_text(t.column("text")) for t in heldout], type=pa.string())
    encoded = pc.dictionary_encode(keys).combine_chunks()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    n_codes = len(encoded.dictionary)
    train_codes, heldout_codes = codes[: len(train_ids)], codes[len(train_ids):]

    first_heldout = _first_index_per_code(heldout_codes, n_codes)[train_codes]
    first_train = _first_index_per_code(train_codes, n_codes)[train_codes]
    is_heldout = first_heldout >= 0
    is_repeat = (first_train != np.arange(len(train_ids))) & ~is_heldout
    duplicate_of = np.where(is_heldout, heldout_ids[np.maximum(first_heldout, 0)] if len(heldout_ids)
                            else None, train_ids[first_train])
    return is_heldout, is_repeat, duplicate_of, first_train


def duplicates_mask(train: pa.Table, heldout: list[pa.Table]) -> np.ndarray:
    """The train queries the dedup excludes from the whole file, and the earlier train queries they repeat."""
    is_heldout, is_repeat, _, first_train = _duplicates(train, heldout)
    mask = is_heldout | is_repeat
    mask[first_train[is_repeat]] = True
    return mask


def dedup_train_queries(train: pa.Table, heldout: list[pa.Table], sample_size: int | None = None,
                        sample_seed: int = 0, with_duplicates: bool = False) -> DedupResult:
    """Dedup train queries (columns query_id, text) against held-out query tables, in their order.

    A sample (`sample_size`) comes first: its queries are the ones assigned for annotation, and the dedup
    runs on them. `with_duplicates` also assigns every query the dedup would exclude from the whole file
    and the queries they repeat, so that a small sample shows the dedup at work."""
    assigned = sample_ids(train.column("query_id").to_pylist(), sample_size, sample_seed)
    if with_duplicates and not assigned.all():
        assigned |= duplicates_mask(train, heldout)
    train = train.filter(assigned)
    train_ids = train.column("query_id").to_numpy(zero_copy_only=False)
    is_heldout, is_repeat, duplicate_of, _ = _duplicates(train, heldout)
    excluded_rows = np.flatnonzero(is_heldout | is_repeat)
    excluded = pd.DataFrame({
        "query_id": train_ids[excluded_rows],
        "reason": np.where(is_heldout[excluded_rows], REASON_HELDOUT, REASON_REPEAT),
        "duplicate_of": duplicate_of[excluded_rows],
    }, columns=EXCLUDED_COLUMNS).astype(str)
    kept = train_ids[~(is_heldout | is_repeat)].tolist()
    return DedupResult(collection=kept, excluded=excluded, n_assigned=len(train_ids))


def write_query_ids(*, validated, train_queries, dev_queries, heldout_queries, train_collection, train_excluded,
                    dev_all, settings: dict) -> dict:
    """The dedup_train_queries rule, once the inputs are `validated`: run the dedup on files and write the
    train queries kept and excluded and the dev queries (samples per `settings`: sample_settings)."""
    s = settings
    train = read_queries(train_queries)
    heldout = [read_heldout_queries(p) for p in heldout_queries]
    result = dedup_train_queries(train, heldout, s["train_sample"], s["train_seed"], s["train_with_duplicates"])
    dev = read_queries(dev_queries)
    keep = sample_ids(dev.column("query_id").to_pylist(), s["dev_sample"], s["dev_seed"])
    dev_ids = dev.filter(keep).column("query_id")

    write_lines_atomic(train_collection, result.collection)
    with atomic_open(train_excluded) as fh:
        result.excluded.to_csv(fh, sep="\t", index=False, lineterminator="\n")
    write_lines_atomic(dev_all, dev_ids.to_pylist())
    return {
        "assigned": result.n_assigned,
        "collection": len(result.collection),
        "excluded": result.excluded["reason"].value_counts().sort_index().to_dict(),
        "dev": len(dev_ids),
    }
