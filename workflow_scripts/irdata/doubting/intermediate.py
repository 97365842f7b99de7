"""Readers of the per-shard files the LLM stages write (formats and layout: irdata/shard_files.py).

Every reader checks the columns and types (integer widths may be narrower or wider and are cast
when the values fit; `large_string` is accepted for string) and the row rules of shard_files.py, and
raises `InputError` naming the file, the column and the first offending value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..errors import InputError
from ..shard_files import NULLABLE, ORIGINS, STRING
from ..shard_files import SCHEMAS as STAGE_SCHEMAS


def _compatible(actual: pa.DataType, wanted: pa.DataType) -> bool:
    if wanted == STRING:
        return pa.types.is_string(actual) or pa.types.is_large_string(actual) or (
            pa.types.is_dictionary(actual) and (pa.types.is_string(actual.value_type)
                                                or pa.types.is_large_string(actual.value_type)))
    if pa.types.is_integer(wanted):
        return pa.types.is_integer(actual) or pa.types.is_null(actual)
    if pa.types.is_floating(wanted):
        return pa.types.is_floating(actual) or pa.types.is_integer(actual) or pa.types.is_null(actual)
    return actual == wanted


def read_checked(path, schema: pa.Schema) -> pa.Table:
    """Read a parquet file, check its columns against `schema`, cast to it, check nulls."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found; the stage that writes it has not run")
    try:
        # a ParquetFile, not read_table: the dataset layer costs a quarter more CPU on files this small
        with pq.ParquetFile(path) as parquet:
            table = parquet.read()
    except Exception as exc:  # noqa: BLE001 - any read failure is a bad file
        raise InputError(path, f"cannot be read as parquet: {exc}") from exc
    names = table.column_names
    missing = [n for n in schema.names if n not in names]
    if missing:
        raise InputError(path, f"missing column(s) {missing}; expected exactly {schema.names}, found {names}",
                         field=missing[0])
    extra = [n for n in names if n not in schema.names]
    if extra:
        raise InputError(path, f"unexpected column(s) {extra}; expected exactly {schema.names}", field=extra[0])
    columns = []
    for field in schema:
        col = table.column(field.name)
        if not _compatible(col.type, field.type):
            raise InputError(path, f"type {col.type} where {field.type} is expected", field=field.name)
        if pa.types.is_dictionary(col.type):
            col = pc.cast(col, col.type.value_type)
        try:
            col = pc.cast(col, field.type)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(path, f"values do not fit {field.type}: {exc}", field=field.name) from exc
        if field.name not in NULLABLE and col.null_count:
            row = pc.index(pc.is_null(col), True).as_py()
            raise InputError(path, f"null value in row {row} ({col.null_count} null(s)); nulls are not allowed here",
                             field=field.name)
        columns.append(col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col)
    return pa.table(columns, schema=schema)


def _first(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def query_positions(path, table: pa.Table, shard_ids: pa.Array) -> np.ndarray:
    """Position of every row's query_id in the shard list; error on a query not in the shard."""
    pos = pc.index_in(table.column("query_id"), value_set=shard_ids)
    if pos.null_count:
        row = pc.index(pc.is_null(pos), True).as_py()
        raise InputError(path, f"query_id {table.column('query_id')[row].as_py()!r} (row {row}) is not a query "
                         f"of this shard ({pos.null_count} such row(s)); shards partition the queries",
                         field="query_id")
    return pos.to_numpy(zero_copy_only=False).astype(np.int64)


def pair_codes(*passage_columns) -> tuple[list[np.ndarray], int]:
    """Integer codes of passage ids shared by several columns of one shard (one dictionary)."""
    arrays = [pc.cast(c, STRING) for c in passage_columns]
    arrays = [a.combine_chunks() if isinstance(a, pa.ChunkedArray) else a for a in arrays]
    enc = pc.dictionary_encode(pa.concat_arrays(arrays) if arrays else pa.array([], STRING))
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    bounds = np.cumsum([0] + [len(a) for a in arrays])
    return [codes[bounds[i]:bounds[i + 1]] for i in range(len(arrays))], max(len(enc.dictionary), 1)


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
        pos = np.minimum(np.searchsorted(self.sorted, keys), len(self.sorted) - 1)
        return np.where(self.sorted[pos] == keys, self.order[pos], -1)

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


def read_agent(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """Agent proposals; (query_id, passage_id) uniqueness is checked by assemble with shard-wide codes."""
    table = read_checked(path, STAGE_SCHEMAS["agent"])
    qpos = query_positions(path, table, shard_ids)
    rank = table.column("agent_rank").to_numpy().astype(np.int64)
    if len(rank) and rank.min() < 1:
        row = _first(rank < 1)
        raise InputError(path, f"agent_rank {int(rank[row])} in row {row}; ranks are 1-based", field="agent_rank")
    SortedKeys(qpos * (int(rank.max(initial=0)) + 1) + rank).check_unique(path, table, ("query_id", "agent_rank"))
    return table, qpos


def read_grades(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """Grade rows; (query_id, passage_id, origin) uniqueness is checked by assemble."""
    table = read_checked(path, STAGE_SCHEMAS["grades"])
    qpos = query_positions(path, table, shard_ids)
    origin_ok = pc.is_in(table.column("origin"), value_set=pa.array(ORIGINS))
    if pc.any(pc.invert(origin_ok)).as_py():
        row = pc.index(origin_ok, False).as_py()
        raise InputError(path, f"origin {table.column('origin')[row].as_py()!r} in row {row}; expected one of "
                         f"{list(ORIGINS)}", field="origin")
    grade = table.column("grade")
    bad = pc.fill_null(pc.or_(pc.less(grade, 0), pc.greater(grade, 3)), False)
    if pc.any(bad).as_py():
        row = pc.index(bad, True).as_py()
        raise InputError(path, f"grade {grade[row].as_py()} in row {row}; grades are 0-3 (null for a failed call)",
                         field="grade")
    return table, qpos


def read_answers(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    table = read_checked(path, STAGE_SCHEMAS["answers"])
    qpos = query_positions(path, table, shard_ids)
    SortedKeys(qpos).check_unique(path, table, ("query_id",))
    return table, qpos


def read_wood(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """WOOD rows; NaN and infinities become null (not finite). Pair uniqueness: assemble."""
    table = read_checked(path, STAGE_SCHEMAS["wood"])
    qpos = query_positions(path, table, shard_ids)
    wood = table.column("wood")
    finite = pc.is_finite(wood)  # null stays null
    table = table.set_column(2, "wood", pc.if_else(finite, wood, pa.scalar(None, pa.float64())))
    return table, qpos
