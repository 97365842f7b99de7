"""The canonical id order of a collection, and finding ids in a column kept in it.

The passage store and both indexes number passages by their row in the collection sorted by id
(numerically when every id is an integer, as MS MARCO pids are). Breaking score ties by row is then
breaking them by id, and the store and the indexes built from it agree on every row number. This
module is below both: irdata/passage_store.py and irdata/retrieval/ import it.
"""

from __future__ import annotations

import bisect
import hashlib
import re

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_INT_ID = r"^(0|[1-9][0-9]{0,17})$"  # canonical integers that fit int64 ("012" is a string id)
_INT_ID_RE = re.compile(r"0|[1-9][0-9]{0,17}")  # the same, for fullmatch (no trailing newline)


def numeric_ids(ids: pa.ChunkedArray | pa.Array) -> bool:
    """Whether every id is a canonical integer, so that ids sort (and are searched) as int64 keys."""
    return len(ids) > 0 and pc.all(pc.match_substring_regex(ids, _INT_ID)).as_py()


def sort_by_id(table: pa.Table, id_name: str = "id") -> pa.Table:
    """The table in canonical id order (numeric when all ids are integers, else by code point)."""
    ids = table.column(id_name)
    key = pc.cast(ids, pa.int64()) if numeric_ids(ids) else ids
    order = pc.sort_indices(key)
    if pc.all(pc.equal(order, pa.array(np.arange(len(order))))).as_py():
        return table  # MS MARCO's collection.tsv is already in pid order: skip the copy
    return table.take(order)


def ids_digest(ids: pa.ChunkedArray | pa.Array) -> str:
    """Fingerprint of the ordered id list: the store, indexes and embedding shards must agree on it."""
    return hashlib.sha256(_chunk_bytes(pa.chunked_array(ids).combine_chunks())).hexdigest()


def _chunk_bytes(chunk: pa.Array) -> bytes:
    # offsets + data of the string array: the ids and their boundaries, without a Python loop
    chunk = pc.cast(chunk, pa.large_string())
    _, offsets, data = chunk.buffers()
    start, end = chunk.offset, chunk.offset + len(chunk)
    offs = np.frombuffer(offsets, dtype=np.int64)[start:end + 1]
    body = np.frombuffer(data, dtype=np.uint8)[offs[0]:offs[-1]] if data is not None else np.empty(0, np.uint8)
    return (offs - offs[0]).tobytes() + body.tobytes()


def id_columns(ids: pa.ChunkedArray | pa.Array) -> dict:
    """The columns that store ids for lookup: `id`, plus `key` (int64) when the ids are numeric."""
    ids = pc.cast(pa.chunked_array(ids).combine_chunks(), pa.string())
    return {"id": ids, "key": pc.cast(ids, pa.int64())} if numeric_ids(ids) else {"id": ids}


class IdLookup:
    """Rows of ids in a column in canonical id order, by binary search: nothing is built or read
    when it is opened, and a lookup touches a few pages of a memory-mapped column.

    `keys` (the int64 `key` column, chunk for chunk) is given when the ids are numeric.
    """

    def __init__(self, ids: pa.ChunkedArray, keys: pa.ChunkedArray | None):
        self.ids = ids
        self.numeric = keys is not None
        if self.numeric:
            chunks = [chunk for chunk in keys.chunks if len(chunk)]
            self._keys = [chunk.to_numpy(zero_copy_only=True) for chunk in chunks]
            self._firsts = np.array([k[0] for k in self._keys], dtype=np.int64)
            self._first_keys = self._firsts.tolist()
            self._starts = np.cumsum([0] + [len(k) for k in self._keys[:-1]], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.ids)

    def find_one(self, pid) -> int:
        """The row of one id, -1 when absent (the LLM stages' fetch-by-id, without numpy's per-call cost)."""
        pid = str(pid)
        if not self.numeric:
            column = _Strings(self.ids)
            pos = bisect.bisect_left(column, pid)
            return pos if pos < len(column) and column[pos] == pid else -1
        if not _INT_ID_RE.fullmatch(pid):
            return -1
        key = int(pid)
        chunk = bisect.bisect_right(self._first_keys, key) - 1
        if chunk < 0:
            return -1
        keys = self._keys[chunk]
        pos = int(keys.searchsorted(key))
        return int(self._starts[chunk]) + pos if pos < len(keys) and keys[pos] == key else -1

    def find(self, ids) -> np.ndarray:
        """The row of each id (int64), -1 where the id is not in the column."""
        ids = [str(i) for i in ids]
        if not self.numeric or not ids:
            return np.array([self.find_one(i) for i in ids], dtype=np.int64)
        rows = np.full(len(ids), -1, dtype=np.int64)
        # a string id that is not a canonical integer is in no numeric column
        wanted = np.array([int(i) if _INT_ID_RE.fullmatch(i) else -1 for i in ids], dtype=np.int64)
        chunk = np.searchsorted(self._firsts, wanted, side="right") - 1
        valid = (wanted >= 0) & (chunk >= 0)
        for c in np.unique(chunk[valid]):
            sel = np.flatnonzero(valid & (chunk == c))
            keys = self._keys[c]
            pos = np.minimum(np.searchsorted(keys, wanted[sel]), len(keys) - 1)
            hit = keys[pos] == wanted[sel]
            rows[sel[hit]] = self._starts[c] + pos[hit]
        return rows


class _Strings:
    """An Arrow string column as a sequence of str, for `bisect` (code-point order = UTF-8 byte order)."""

    def __init__(self, column: pa.ChunkedArray):
        self._column = column

    def __len__(self) -> int:
        return len(self._column)

    def __getitem__(self, i: int) -> str:
        return self._column[i].as_py()
