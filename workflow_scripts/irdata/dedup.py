"""Train-query dedup of a Doubting build (its card says what it removed).

Texts are compared under one rule (irdata/query_text.py: format characters removed, Unicode NFKC, case folding,
punctuation removed, whitespace collapsed). A train query whose text equals a held-out query's (irdata/heldout.py:
the dev queries, the audit's, every listed file; a BEIR folder's other splits) is excluded with reason `heldout`;
one that repeats the text of an earlier train query (file order) is excluded with reason `repeat`, the earlier one
stays. `heldout` takes precedence, and the first held-out source holding the text is the one named. Each exclusion
names the query it duplicates and that query's source (its config key and file): the train queries' for a repeat.
Everything is columnar: 500k queries take seconds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .atomic import atomic_open, write_json_atomic, write_lines_atomic
from .heldout import Source, read_checked_heldout
from .query_files import read_queries
from .query_text import RULE_TEXT, matching_steps, normalize_query_text
from .shards import sample_ids
from .train_excluded import EXCLUDED_COLUMNS, REASON_HELDOUT, REASON_REPEAT


def sample_settings(config: dict) -> dict:
    """Each split's sample size (None: every query, also when config `queries` is `all`) and seed, and
    whether the train sample takes the duplicates in."""
    d, sampled = config["doubting"], config["queries"] == "sample"
    return {"train_sample": d["train_sample"]["size"] if sampled else None,
            "dev_sample": d["dev_sample"]["size"] if sampled else None,
            "train_seed": d["train_sample"]["seed"], "dev_seed": d["dev_sample"]["seed"],
            "train_with_duplicates": d["train_sample"]["with_duplicates"] and sampled}


@dataclass
class DedupResult:
    collection: list[str]        # kept train query ids, file order
    excluded: pd.DataFrame       # EXCLUDED_COLUMNS
    n_assigned: int              # queries assigned for annotation (after the optional sample)
    steps: dict[str, int]        # exclusions by the step of the text rule that made the texts equal


def _first_index_per_code(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """For each code, the index of its first occurrence in `codes` (-1 where absent)."""
    first = np.full(n_codes, -1, dtype=np.int64)
    unique, index = np.unique(codes, return_index=True)
    first[unique] = index
    return first


@dataclass
class _Matches:
    is_heldout: np.ndarray       # per train query: its text is held out
    is_repeat: np.ndarray        # per train query: it repeats an earlier train query (and is not held out)
    first_heldout: np.ndarray    # per train query: the index of the first held-out query with its text, or -1
    first_train: np.ndarray      # per train query: the index of the first train query with its text


def _matches(train: pa.Table, heldout: pa.Table) -> _Matches:
    """Which train queries are held out or repeats, by the module's rules (`heldout`: query_id, text)."""
    # One dictionary over train and held-out texts turns text equality into integer equality.
    keys = pa.chunked_array([normalize_query_text(train.column("text")),
                             normalize_query_text(heldout.column("text"))], type=pa.string())
    encoded = pc.dictionary_encode(keys).combine_chunks()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    n_codes = len(encoded.dictionary)
    train_codes, heldout_codes = codes[: train.num_rows], codes[train.num_rows:]
    first_heldout = _first_index_per_code(heldout_codes, n_codes)[train_codes]
    first_train = _first_index_per_code(train_codes, n_codes)[train_codes]
    is_heldout = first_heldout >= 0
    is_repeat = (first_train != np.arange(train.num_rows)) & ~is_heldout
    return _Matches(is_heldout, is_repeat, first_heldout, first_train)


def _heldout_table(heldout: list[tuple[Source, pa.Table]]) -> pa.Table:
    """The held-out tables (query_id, text) in precedence order as one, with each row's source index."""
    return pa.concat_tables(
        [pa.table({"query_id": t.column(0).cast(pa.string()), "text": t.column(1).cast(pa.string()),
                   "source": pa.array(np.full(t.num_rows, i, np.int32))}) for i, (_, t) in enumerate(heldout)]
        + [pa.table({"query_id": pa.array([], pa.string()), "text": pa.array([], pa.string()),
                     "source": pa.array([], pa.int32())})])


def duplicates_mask(train: pa.Table, heldout: list[tuple[Source, pa.Table]]) -> np.ndarray:
    """The train queries the dedup excludes from the whole file, and the earlier train queries they repeat."""
    m = _matches(train, _heldout_table(heldout))
    mask = m.is_heldout | m.is_repeat
    mask[m.first_train[m.is_repeat]] = True
    return mask


def _labelled(queries, name: str) -> tuple[Source, pa.Table]:
    """(source, table): a table without its source is named by its place (`name`)."""
    return (Source(name, name), queries) if isinstance(queries, pa.Table) else queries


def dedup_train_queries(train: tuple[Source, pa.Table], heldout: list[tuple[Source, pa.Table]],
                        sample_size: int | None = None, sample_seed: int = 0,
                        with_duplicates: bool = False) -> DedupResult:
    """Dedup the train queries (a source and its table of query_id, text) against the held-out sources, in their
    precedence order (a bare table stands for a source named by its place: `train`, `heldout[i]`).

    A sample (`sample_size`) comes first: its queries are the ones assigned for annotation, and the dedup
    runs on them. `with_duplicates` also assigns every query the dedup would exclude from the whole file
    and the queries they repeat, so that a small sample shows the dedup at work."""
    train_source, queries = _labelled(train, "train")
    heldout = [_labelled(table, f"heldout[{i}]") for i, table in enumerate(heldout)]
    assigned = sample_ids(queries.column("query_id").to_pylist(), sample_size, sample_seed)
    if with_duplicates and not assigned.all():
        assigned |= duplicates_mask(queries, heldout)
    queries = queries.filter(assigned)
    held = _heldout_table(heldout)
    m = _matches(queries, held)
    rows = np.flatnonzero(m.is_heldout | m.is_repeat)
    from_heldout = m.is_heldout[rows]
    heldout_row = np.maximum(m.first_heldout[rows], 0)
    train_row = m.first_train[rows]

    def pick(train_values: pa.ChunkedArray, heldout_values: pa.ChunkedArray) -> np.ndarray:
        """Per excluded query, the value of the query it duplicates: a held-out one's or an earlier train one's."""
        ours = train_values.take(pa.array(train_row, pa.int64())).to_numpy(zero_copy_only=False)
        if not held.num_rows:
            return ours
        theirs = heldout_values.take(pa.array(heldout_row, pa.int64())).to_numpy(zero_copy_only=False)
        return np.where(from_heldout, theirs, ours)

    # the source of each duplicated query: 0 the train queries, i + 1 held-out source i
    labels = [train_source, *(source for source, _ in heldout)]
    heldout_source = held.column("source").to_numpy()[heldout_row] + 1 if held.num_rows else 0
    source = np.where(from_heldout, heldout_source, 0)
    train_ids = queries.column("query_id").to_numpy(zero_copy_only=False)
    excluded = pd.DataFrame({
        "query_id": train_ids[rows],
        "reason": np.where(from_heldout, REASON_HELDOUT, REASON_REPEAT),
        "duplicate_of": pick(queries.column("query_id"), held.column("query_id")),
        "source_key": np.array([labels[i].key for i in source], dtype=object),
        "source_file": np.array([labels[i].file for i in source], dtype=object),
    }, columns=EXCLUDED_COLUMNS).astype(str)
    texts = queries.column("text").take(pa.array(rows, pa.int64()))
    steps = matching_steps(texts, pick(queries.column("text"), held.column("text")))
    kept = train_ids[~(m.is_heldout | m.is_repeat)].tolist()
    return DedupResult(collection=kept, excluded=excluded, n_assigned=len(train_ids), steps=steps)


def excluded_by_source(excluded: pd.DataFrame) -> list[dict]:
    """The exclusions by reason and source (key, file), in the order the sources first occur in `excluded`."""
    if excluded.empty:
        return []
    groups = excluded.groupby(["reason", "source_key", "source_file"], sort=False).size()
    return [{"reason": reason, "key": key, "file": file, "queries": int(n)}
            for (reason, key, file), n in groups.items()]


def write_query_ids(*, validated, train_queries, dev_queries, heldout_queries, train_collection, train_excluded,
                    dev_all, report, settings: dict) -> dict:
    """The dedup_train_queries rule, once the inputs are `validated` (inputs.json names the train and held-out
    sources): run the dedup on files and write the train queries kept and excluded, the dev queries (samples per
    `settings`: sample_settings) and the dedup's `report`."""
    s = settings
    with open(validated, encoding="utf-8") as fh:
        inputs = json.load(fh)
    train = (Source.from_record(inputs["train_source"]), read_queries(train_queries))
    held = read_checked_heldout(heldout_queries)
    source_of = held.column("source").to_numpy()
    heldout = [(Source.from_record(record), held.filter(pa.array(source_of == i)))
               for i, record in enumerate(inputs["heldout_sources"])]
    result = dedup_train_queries(train, heldout, s["train_sample"], s["train_seed"], s["train_with_duplicates"])
    dev = read_queries(dev_queries)
    keep = sample_ids(dev.column("query_id").to_pylist(), s["dev_sample"], s["dev_seed"])
    dev_ids = dev.filter(keep).column("query_id")

    write_lines_atomic(train_collection, result.collection)
    with atomic_open(train_excluded) as fh:
        result.excluded.to_csv(fh, sep="\t", index=False, lineterminator="\n")
    write_lines_atomic(dev_all, dev_ids.to_pylist())
    counts = {
        "assigned": result.n_assigned,
        "collection": len(result.collection),
        "excluded": result.excluded["reason"].value_counts().sort_index().to_dict(),
        "excluded_by_source": excluded_by_source(result.excluded),
        "rule": RULE_TEXT,
        "matched_by_step": result.steps,
        "heldout_sources": inputs["heldout_sources"],
        "dev": len(dev_ids),
    }
    write_json_atomic(report, counts)
    return counts
