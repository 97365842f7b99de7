"""What a Doubting build holds out from its train queries, and the checks that keep its held-out queries out of train.

Every build holds out its own evaluation queries, listed or not: those its source names (an MS MARCO build's dev
queries, every qrels split of a BEIR folder but the train split, an ir_datasets build's dev id and held-out ids:
each source's heldout_files and input check, irdata/sources/), the label audit's queries (`audit.queries`) and every
query file its source's key lists (`heldout_queries`, `source.heldout_queries`). The blinded human audit draws its
queries from the dev queries, held out with them, or (`audit.human.split: train`) from the train queries, whose
labels it audits: those are train queries by design, and nothing is held out for them.

Each held-out source is named by the config keys that name it and by its file (or the name its source gives an input
that is not a file); the input check writes the held-out queries of every source, each (id, text) once, with the
source it came from (write_checked_heldout, recorded in inputs.json as `heldout_sources`), and the dedup names the
source of each exclusion (ids/train_excluded.tsv). A train source that is also a held-out source is refused: the same
file, or a file of the same bytes (same_file_how), or the same input, at planning (each source's
train_heldout_conflicts, naming both keys); a held-out source that holds the text of every train query at the input
check (refuse_train_held_out, naming both).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .atomic import atomic_open
from .errors import InputError
from .provenance import sha256_file
from .query_text import normalize_query_text

HELDOUT_COLUMNS = ("query_id", "text", "source")


@dataclass(frozen=True)
class Source:
    """A query source of a build: the config key shown for it, its file, and the other keys naming that file."""

    key: str
    file: str
    also: tuple[str, ...] = field(default=())

    def record(self) -> dict:
        return {"keys": [self.key, *self.also], "file": self.file}

    @classmethod
    def from_record(cls, record: dict) -> Source:
        return cls(record["keys"][0], record["file"], tuple(record["keys"][1:]))


def grouped(named: list[tuple[str, str]]) -> list[Source]:
    """(key, file) pairs as sources, each file once under its first key, in order."""
    keys: dict[str, list[str]] = {}
    for key, path in named:
        keys.setdefault(str(path), []).append(key)
    return [Source(k[0], path, tuple(k[1:])) for path, k in keys.items()]


def audit_queries(doubting: dict) -> list[tuple[str, str]]:
    """The label audit's query file as a (key, file) pair, held out by every build that names one."""
    return [("audit.queries", doubting["audit"]["queries"])] if doubting["audit"]["queries"] else []


def _same_content(a: Path, b: Path) -> bool:
    """Files of the same bytes: sizes first (a stat), the sha256 only where they agree."""
    return a.stat().st_size == b.stat().st_size and sha256_file(a) == sha256_file(b)


def same_file_how(train: Path, heldout: Path) -> str | None:
    """How a held-out query file is the train queries' file (`is the file of`, `has the same content ... as the file
    of`), or None; a missing one is left to the missing-input check."""
    if not (train.is_file() and heldout.is_file()):
        return None
    if os.path.samefile(train, heldout):
        return "is the file of"
    if _same_content(train, heldout):
        return f"has the same content (sha256 {sha256_file(heldout)[:16]}...) as the file of"
    return None


def combine_heldout(sources: list[tuple[Source, pa.Table]]) -> tuple[pa.Table, dict]:
    """The held-out queries of `sources` (tables of query_id, text) as one table with the index of each query's
    source (HELDOUT_COLUMNS), each (id, text) once, under its first source; and the report's counts.

    A query in several sources is held out once; an id with another text (a file numbered apart from the others)
    is another query, held out too."""
    tables = [table.select([0, 1]).rename_columns(["query_id", "text"])
              .append_column("source", pa.array([i] * table.num_rows, pa.int32()))
              for i, (_, table) in enumerate(sources)]
    heldout = pa.concat_tables(tables) if tables else pa.table(
        {"query_id": pa.array([], pa.string()), "text": pa.array([], pa.string()), "source": pa.array([], pa.int32())})
    pairs = pc.binary_join_element_wise(heldout.column("query_id"), heldout.column("text"), "\t")
    first = ~pairs.to_pandas().duplicated(keep="first").to_numpy()
    counts = {"heldout_queries": int(first.sum()), "heldout_repeats": int(heldout.num_rows - first.sum())}
    return heldout.filter(pa.array(first)), counts


def sources_record(sources: list[tuple[Source, pa.Table]], heldout: pa.Table) -> list[dict]:
    """inputs.json's `heldout_sources`: each source's keys and file and the queries it holds out (its own, less
    those an earlier source holds out)."""
    held = pc.value_counts(heldout.column("source")).to_pylist() if heldout.num_rows else []
    by_source = {row["values"]: row["counts"] for row in held}
    return [{**source.record(), "queries": by_source.get(i, 0)} for i, (source, _) in enumerate(sources)]


def refuse_train_held_out(train: Source, train_queries: pa.Table, sources: list[tuple[Source, pa.Table]]) -> None:
    """A held-out source that holds the text (by the dedup's rule) of every train query is the train queries held
    out: no train query would be left. Refused naming both files and keys."""
    if not train_queries.num_rows:
        return
    train_texts = pc.unique(normalize_query_text(train_queries.column(1)))
    held = [pc.is_in(train_texts, value_set=pc.unique(normalize_query_text(table.column(1)))).to_numpy(
        zero_copy_only=False) for _, table in sources]
    fix = ("a train source cannot be a held-out one (name the train queries' own file, or leave the file out of "
           "the held-out ones)")
    for (source, _), mask in zip(sources, held):
        if mask.all():
            raise InputError(train.file, f"every train query ({train.key}) is also a query of {source.file}, held out "
                             f"as {source.key}: none would be left to train on; {fix}", field=train.key)
    if held and np.logical_or.reduce(held).all():
        named = ", ".join(f"{s.file} ({s.key})" for (s, _), mask in zip(sources, held) if mask.any())
        raise InputError(train.file, f"every train query ({train.key}) is also a held-out query, of {named}: none "
                         f"would be left to train on; {fix}", field=train.key)


def write_checked_heldout(table: pa.Table, path) -> None:
    """The held-out queries as `query_id<TAB>text<TAB>source` lines (the source's index in inputs.json's
    `heldout_sources`); texts hold no tab or line break (the input checks refuse them)."""
    lines = pc.binary_join_element_wise(table.column("query_id"), table.column("text"),
                                        pc.cast(table.column("source"), pa.string()), "\t")
    with atomic_open(path) as fh:
        for chunk in lines.chunks:
            if len(chunk):
                fh.write("\n".join(chunk.to_pylist()) + "\n")


def read_checked_heldout(path) -> pa.Table:
    """The input check's held-out queries (write_checked_heldout)."""
    if Path(path).stat().st_size == 0:
        return combine_heldout([])[0]
    return pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=list(HELDOUT_COLUMNS)),
        parse_options=pacsv.ParseOptions(delimiter="\t", quote_char=False, escape_char=False),
        convert_options=pacsv.ConvertOptions(column_types={"query_id": pa.string(), "text": pa.string(),
                                                           "source": pa.int32()}),
    )
