"""The passage store: a collection as one uncompressed Arrow IPC file, opened memory-mapped.

Written once (by its source's input check, rule validate_<format>_inputs: irdata/sources/; by rule papers_store for
the 44b papers); the indexes and the LLM stages open it in milliseconds whatever its size. Nothing is read until it
is asked for, and the pages that are read are the page cache's, shared by every job of a node.

    store = PassageStore("work/store/msmarco/passages.arrow")
    store["7067032"], store.get("nope"), "12" in store, len(store)
    store.texts(["7067032", "12"])        # many at once: one vectorised id lookup
    store.row_texts(np.array([0, 1]))      # by row number, which is the indexes' row number

Rows are in `sort_by_id` order, so a row of the store is the same row of every BM25 and dense index
built from it. Columns: `id` (string), `text` (large_string), and `key` (int64) when every id is a
canonical integer (MS MARCO pids): ids are found by binary search over `key`, or over `id` itself.
A collection with titles (a BEIR corpus) has a `title` column (large_string, "" for none); a collection
without any keeps exactly the files it had before titles existed. The indexes read `index_texts`:
title + " " + text, trimmed, as BEIR's own evaluation joins them.
The file holds record batches of BATCH_ROWS rows, so that writing it never copies a whole column.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from .atomic import atomic_path
from .id_order import IdLookup, id_columns, ids_digest, sort_by_id
from .tsv import read_id_text_tsv

FORMAT = "irdata-passage-store/1"
BATCH_ROWS = 1 << 16


def write_passage_store(collection, out_path) -> dict:
    """Write a collection (a `pid<TAB>text` file, or a table with `id`, `text` and maybe `title`) as a store.

    A file is validated as it is read (UTF-8, two fields, unique non-empty ids: InputError names the
    line); a table must have unique ids. Rows are sorted into canonical id order. Atomic.
    """
    start = time.perf_counter()
    if isinstance(collection, (str, Path)):
        table = read_id_text_tsv(collection, "id", "text")
    else:
        titled = "title" in collection.column_names and pc.any(
            pc.greater(pc.utf8_length(collection.column("title")), 0)).as_py()
        table = collection.select(["id", "text", "title"] if titled else ["id", "text"])
        if table.num_rows == 0:
            raise ValueError("the collection is empty; nothing to store")
        ids = table.column("id")
        if pc.count_distinct(ids).as_py() != len(ids):
            dup = ids.to_pandas().duplicated().to_numpy().argmax()
            raise ValueError(f"duplicate passage id {ids[int(dup)].as_py()!r}; ids must be unique")
    table = sort_by_id(table)
    columns = id_columns(table.column("id"))
    schema = pa.schema([("id", pa.string()), ("text", pa.large_string())]
                       + ([("key", pa.int64())] if "key" in columns else [])
                       + ([("title", pa.large_string())] if "title" in table.column_names else []),
                       metadata={"format": FORMAT, "rows": str(table.num_rows), "batch_rows": str(BATCH_ROWS),
                                 "ids_sha256": ids_digest(columns["id"])})
    with atomic_path(out_path) as tmp, ipc.new_file(tmp, schema) as writer:
        for first in range(0, table.num_rows, BATCH_ROWS):
            rows = slice(first, min(first + BATCH_ROWS, table.num_rows))
            arrays = {"id": columns["id"][rows]}
            for name in ("text", "title"):
                if name in table.column_names:
                    arrays[name] = pc.cast(table.column(name).slice(rows.start, rows.stop - rows.start)
                                           .combine_chunks(), pa.large_string())
            if "key" in columns:
                arrays["key"] = columns["key"][rows]
            writer.write_batch(pa.record_batch([arrays[name] for name in schema.names], schema=schema))
    return {"passages": table.num_rows, "bytes": Path(out_path).stat().st_size,
            "seconds": round(time.perf_counter() - start, 1)}


class PassageStore:
    """Passage texts by id or by row, memory-mapped; `get`/`[]`/`in`/`len` as for a dict of texts."""

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no passage store; it is written by rule validate_msmarco_inputs "
                                    "(MS MARCO) or papers_store (44b)")
        table = ipc.open_file(pa.memory_map(str(self.path))).read_all()  # zero-copy: buffers are the mapping
        meta = table.schema.metadata or {}
        if meta.get(b"format") != FORMAT.encode():
            raise ValueError(f"{self.path}: not a passage store (format {meta.get(b'format')!r}, expected {FORMAT!r})")
        self.ids_sha256 = meta[b"ids_sha256"].decode()
        self._text = table.column("text")
        self._title = table.column("title") if "title" in table.column_names else None
        self._lookup = IdLookup(table.column("id"), table.column("key") if "key" in table.column_names else None)

    @property
    def ids(self) -> pa.ChunkedArray:
        """The ids in row order (canonical id order)."""
        return self._lookup.ids

    @property
    def numeric(self) -> bool:
        return self._lookup.numeric

    def __len__(self) -> int:
        return len(self._text)

    def rows_of(self, pids) -> np.ndarray:
        """The row of each id, -1 where the store has no such passage."""
        return self._lookup.find(pids)

    def __contains__(self, pid) -> bool:
        return self._lookup.find_one(pid) >= 0

    def get(self, pid) -> str | None:
        row = self._lookup.find_one(pid)
        return self._text[row].as_py() if row >= 0 else None

    def __getitem__(self, pid) -> str:
        text = self.get(pid)
        if text is None:
            raise KeyError(pid)
        return text

    def texts(self, pids) -> list[str]:
        """The texts of many ids; KeyError naming the ids the store does not have."""
        pids = list(pids)
        rows = self.rows_of(pids)
        if (rows < 0).any():
            missing = [pids[i] for i in np.flatnonzero(rows < 0)[:5]]
            raise KeyError(f"{int((rows < 0).sum())} id(s) not in {self.path}, e.g. {missing}")
        return self.row_texts(rows)

    def row_texts(self, rows) -> list[str]:
        # one scalar per row: ChunkedArray.take would first concatenate every chunk of the column
        return [self._text[int(row)].as_py() for row in rows]

    def row_ids(self, rows) -> list[str]:
        return [self.ids[int(row)].as_py() for row in rows]

    @property
    def titled(self) -> bool:
        """Whether the passages have titles (a BEIR corpus)."""
        return self._title is not None

    def title(self, pid) -> str | None:
        """A passage's title: None when the store has no titles or no such passage, "" for an untitled one."""
        row = self._lookup.find_one(pid) if self._title is not None else -1
        return self._title[row].as_py() if row >= 0 else None

    def slice_texts(self, start: int, end: int) -> list[str]:
        """Texts of rows [start, end)."""
        return self._text.slice(start, max(end - start, 0)).to_pylist()

    def index_texts(self, start: int, end: int) -> list[str]:
        """What the indexes read of rows [start, end), in row order: the text, or with titles
        title + " " + text trimmed (BEIR's evaluation joins them so for BM25 and dense encoding)."""
        if self._title is None:
            return self.slice_texts(start, end)
        length = max(end - start, 0)
        joined = pc.binary_join_element_wise(self._title.slice(start, length), self._text.slice(start, length),
                                            pa.scalar(" ", pa.large_string()))
        return pc.utf8_trim_whitespace(joined).to_pylist()


def open_store(collection) -> PassageStore:
    """A PassageStore given one, or the path of a store file."""
    return collection if isinstance(collection, PassageStore) else PassageStore(collection)


def run_papers_store(*, collection, store) -> dict:
    """The papers_store rule: the papers collection as its passage store."""
    return write_passage_store(collection, store)
