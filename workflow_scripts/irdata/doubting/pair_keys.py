"""Integer keys for columnar joins within one shard: passage ids coded through one dictionary shared
by the shard's tables, (query, passage) pairs as int64 keys, and `SortedKeys`, a table's keys sorted
once for the uniqueness checks, set comparisons and lookups that follow. Errors name the file, the
row of its table and the offending values.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..shard_files import STRING


def pair_codes(*passage_columns) -> tuple[list[np.ndarray], int]:
    """Integer codes of passage ids shared by several columns of one shard (one dictionary)."""
    arrays = [pc.cast(c, STRING) for c in passage_columns]
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    encoded = pc.dictionary_encode(pa.concat_arrays(arrays) if arrays else pa.array([], STRING))
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    bounds = np.cumsum([0] + [len(a) for a in arrays])
    return [codes[bounds[i]:bounds[i + 1]] for i in range(len(arrays))], max(len(encoded.dictionary), 1)


def _row_values(table: pa.Table, row: int, columns) -> str:
    return ", ".join(f"{c} {table.column(c)[row].as_py()!r}" for c in columns)


class SortedKeys:
    """The int64 keys of a table's rows (e.g. pair keys), sorted once for every uniqueness check,
    membership test and lookup that follows. An index is a position in `keys`; `rows` gives the row of
    the file's table each key belongs to (a subset's keys keep their rows)."""

    def __init__(self, keys: np.ndarray, order: np.ndarray | None = None, rows: np.ndarray | None = None):
        self.keys = keys
        self.order = np.argsort(keys) if order is None else order   # indices in key order
        self.sorted = keys[self.order]
        self.rows = rows   # None: index i is row i

    def __len__(self) -> int:
        return len(self.keys)

    def table_rows(self, index: np.ndarray) -> np.ndarray:
        return index if self.rows is None else self.rows[index]

    def subset(self, mask: np.ndarray) -> SortedKeys:
        """The keys where `mask`, indexed 0.. and sorted without sorting again."""
        kept_in_order = self.order[mask[self.order]]
        new_index = np.cumsum(mask) - 1
        return SortedKeys(self.keys[mask], new_index[kept_in_order], self.table_rows(np.flatnonzero(mask)))

    def check_unique(self, path, table: pa.Table, columns: tuple[str, ...]) -> None:
        """Every key must be unique; else name the first repeated row of `table`."""
        repeats = np.flatnonzero(self.sorted[1:] == self.sorted[:-1])
        if len(repeats):
            rows = np.sort(self.table_rows(self.order[self.sorted == self.sorted[repeats[0]]]))
            raise InputError(path, f"({_row_values(table, int(rows[1]), columns)}) in row {int(rows[1])} repeats "
                             f"row {int(rows[0])} ({len(repeats)} repeat(s)); ({', '.join(columns)}) must be unique",
                             field=columns[-1])

    def contains(self, keys: np.ndarray) -> np.ndarray:
        """Per key: whether it is one of these keys."""
        return self.index_of(keys) >= 0

    def index_of(self, keys: np.ndarray) -> np.ndarray:
        """Per key: its index here (keys unique), -1 where absent."""
        if len(self.sorted) == 0:
            return np.full(len(keys), -1, np.int64)
        at = np.minimum(np.searchsorted(self.sorted, keys), len(self.sorted) - 1)
        return np.where(self.sorted[at] == keys, self.order[at], -1)

    def same_set(self, other: SortedKeys) -> bool:
        return len(self) == len(other) and np.array_equal(self.sorted, other.sorted)

    def matching(self, other: SortedKeys) -> np.ndarray:
        """Per key of `other`, the index here of the same key; both unique and `same_set`."""
        index = np.empty(len(other), np.int64)
        index[other.order] = self.order
        return index


def take(values, idx: np.ndarray) -> pa.Array:
    """values[idx], null where idx is -1."""
    values = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if len(values) == 0:
        return pa.nulls(len(idx), values.type)
    return pc.take(values, pa.array(np.maximum(idx, 0), pa.int64(), mask=idx < 0))


def check_same_pairs(path, field: str, got: SortedKeys, got_table: pa.Table, expected: SortedKeys,
                     expected_table: pa.Table, got_what: str, expected_what: str) -> None:
    """The pair keys `got` (of rows of `got_table`, read from `path`) must be those of `expected` (of rows
    of `expected_table`); both unique."""
    if got.same_set(expected):
        return
    extra = ~expected.contains(got.keys)
    if extra.any():
        row = int(got.table_rows(np.flatnonzero(extra)[:1])[0])
        raise InputError(path, f"row {row} ({_row_values(got_table, row, ('query_id', 'passage_id'))}) is "
                         f"{got_what} but not {expected_what} ({int(extra.sum())} such row(s))", field=field)
    missing = ~got.contains(expected.keys)
    row = int(expected.table_rows(np.flatnonzero(missing)[:1])[0])
    raise InputError(path, f"no row for ({_row_values(expected_table, row, ('query_id', 'passage_id'))}), which "
                     f"is {expected_what} ({int(missing.sum())} such pair(s) missing)", field=field)
