"""Streaming the shards' tables into the release's parquet files, in shard order.

Shards are processed up to `threads` at a time (pyarrow and numpy release the GIL), but their tables
are written in shard order, one row group per shard and file, so the bytes do not depend on
`threads`. At most threads + 1 finished shards wait to be written: memory is bounded by a few shards.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from ..atomic import atomic_path
from .release_files import DATA_FILES, PARQUET_OPTIONS, SCHEMAS

ROW_GROUP_ROWS = 1 << 20
Result = TypeVar("Result")


class ShardTables(list):
    """The tables one shard contributes, in order: (config, split, table)."""

    def add(self, config: str, split: str, table: pa.Table) -> None:
        self.append((config, split, table))


class ReleaseWriters:
    """One ParquetWriter per (config, split), opened up front so that every file exists, even empty."""

    def __init__(self, out_dir: Path, stack: contextlib.ExitStack):
        self.writers, self.rows = {}, {}
        for config_split, rel in DATA_FILES.items():
            tmp = stack.enter_context(atomic_path(out_dir / rel))
            self.writers[config_split] = stack.enter_context(
                pq.ParquetWriter(tmp, SCHEMAS[config_split[0]], **PARQUET_OPTIONS))
            self.rows[config_split] = 0

    def write(self, tables: ShardTables) -> None:
        for config, split, table in tables:
            if table.num_rows:
                self.writers[(config, split)].write_table(table.cast(SCHEMAS[config]), row_group_size=ROW_GROUP_ROWS)
                self.rows[(config, split)] += table.num_rows


def in_shard_order(process: Callable[[int], Result], n_shards: int, threads: int) -> Iterator[Result]:
    """process(0), process(1), ... in order, up to `threads` of them running at once."""
    if threads <= 1:
        yield from (process(i) for i in range(n_shards))
        return
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        for i in range(n_shards):
            pending.append(pool.submit(process, i))
            if len(pending) > threads:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
