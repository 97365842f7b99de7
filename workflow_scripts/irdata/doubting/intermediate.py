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
from ..grade_scale import GRADES
from ..shard_files import NULLABLE, ORIGINS, STRING
from ..shard_files import SCHEMAS as STAGE_SCHEMAS
from .pair_keys import SortedKeys


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
    position = pc.index_in(table.column("query_id"), value_set=shard_ids)
    if position.null_count:
        row = pc.index(pc.is_null(position), True).as_py()
        raise InputError(path, f"query_id {table.column('query_id')[row].as_py()!r} (row {row}) is not a query "
                         f"of this shard ({position.null_count} such row(s)); shards partition the queries",
                         field="query_id")
    return position.to_numpy(zero_copy_only=False).astype(np.int64)


def read_agent(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """Agent proposals; (query_id, passage_id) uniqueness is checked by assemble with shard-wide codes."""
    table = read_checked(path, STAGE_SCHEMAS["agent"])
    query = query_positions(path, table, shard_ids)
    rank = table.column("agent_rank").to_numpy().astype(np.int64)
    if len(rank) and rank.min() < 1:
        row = _first(rank < 1)
        raise InputError(path, f"agent_rank {int(rank[row])} in row {row}; ranks are 1-based", field="agent_rank")
    SortedKeys(query * (int(rank.max(initial=0)) + 1) + rank).check_unique(path, table, ("query_id", "agent_rank"))
    return table, query


def read_grades(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """Grade rows; (query_id, passage_id, origin) uniqueness is checked by assemble."""
    table = read_checked(path, STAGE_SCHEMAS["grades"])
    query = query_positions(path, table, shard_ids)
    origin_ok = pc.is_in(table.column("origin"), value_set=pa.array(ORIGINS))
    if pc.any(pc.invert(origin_ok)).as_py():
        row = pc.index(origin_ok, False).as_py()
        raise InputError(path, f"origin {table.column('origin')[row].as_py()!r} in row {row}; expected one of "
                         f"{list(ORIGINS)}", field="origin")
    grade = table.column("grade")
    bad = pc.and_(pc.is_valid(grade), pc.invert(pc.is_in(grade, value_set=pa.array(GRADES, pa.int8()))))
    if pc.any(bad).as_py():
        row = pc.index(bad, True).as_py()
        raise InputError(path, f"grade {grade[row].as_py()} in row {row}; grades are 0-3 (null for a failed call)",
                         field="grade")
    return table, query


def read_answers(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    table = read_checked(path, STAGE_SCHEMAS["answers"])
    query = query_positions(path, table, shard_ids)
    SortedKeys(query).check_unique(path, table, ("query_id",))
    return table, query


def read_wood(path, shard_ids: pa.Array) -> tuple[pa.Table, np.ndarray]:
    """WOOD rows; NaN and infinities become null (not finite). Pair uniqueness: assemble."""
    table = read_checked(path, STAGE_SCHEMAS["wood"])
    query = query_positions(path, table, shard_ids)
    wood = table.column("wood")
    finite = pc.is_finite(wood)  # null stays null
    table = table.set_column(2, "wood", pc.if_else(finite, wood, pa.scalar(None, pa.float64())))
    return table, query
