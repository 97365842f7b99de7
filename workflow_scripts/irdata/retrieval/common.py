"""Pieces shared by the BM25 and dense indexes: their id files, hits, settings checks and shards.

Both number passages by their row in the collection in canonical id order (irdata/id_order.py), as
the passage store does, so they agree with it on every row number.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.ipc as ipc

from ..atomic import json_text
from ..id_order import IdLookup, id_columns
from ..json_files import read_json

IDS_FILE = "ids.arrow"
SETTINGS_FILE = "settings.json"
class IndexMismatchError(ValueError):
    """An index on disk was built with other settings (tokenizer, model, collection) than asked for."""


def write_ids(directory: Path, ids: pa.ChunkedArray | pa.Array) -> None:
    table = pa.table(id_columns(ids))
    with ipc.new_file(directory / IDS_FILE, table.schema) as writer:
        writer.write_table(table)


class IdMap:
    """The ids of an index, memory-mapped; maps rows to ids and ids to rows."""

    def __init__(self, directory: Path):
        table = ipc.open_file(pa.memory_map(str(directory / IDS_FILE))).read_all()
        self.ids = table.column("id")
        self._lookup = IdLookup(self.ids, table.column("key") if "key" in table.column_names else None)

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.ids.take(pa.array(rows)).to_pylist(), dtype=object)  # one chunk: no copy

    def rows_of(self, ids) -> np.ndarray:
        """Rows of the given ids; ids not in the collection are dropped (they can never be hits)."""
        rows = self._lookup.find(ids)
        return np.unique(rows[rows >= 0])


@dataclass(frozen=True)
class Hits:
    """Ranked results of one query: parallel arrays, best first; ranks start at 1.

    `rows` are positions in the collection's id order (shared by the BM25 and dense indexes of a
    collection); fusion joins on them and breaks ties with them.
    """

    ids: np.ndarray
    scores: np.ndarray
    rows: np.ndarray

    @property
    def ranks(self) -> np.ndarray:
        return np.arange(1, len(self.ids) + 1, dtype=np.int32)

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self):
        """(id, score, rank) triples, best first."""
        return zip(self.ids.tolist(), self.scores.tolist(), range(1, len(self.ids) + 1))

    @staticmethod
    def empty() -> "Hits":
        return Hits(np.empty(0, dtype=object), np.empty(0, dtype=np.float32), np.empty(0, dtype=np.int64))


def rank_rows(rows: np.ndarray, scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Keep the k best (rows, scores): score descending, then row (= id) ascending, deterministically."""
    order = np.lexsort((rows, -scores))[:k]
    return rows[order], scores[order]


def top_k_rows(scores: np.ndarray, k: int, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """The k best rows of a full score vector among those scoring above `floor`, ties by row."""
    rows = np.flatnonzero(scores > floor)
    if len(rows) > k:
        cand = scores[rows]
        kth = np.partition(cand, len(cand) - k)[len(cand) - k]
        rows = rows[cand >= kth]  # keeps every row tied with the k-th, so the tie-break decides
    return rank_rows(rows, scores[rows], k)


def check_settings(directory, stored: dict, asked: dict, rebuild_hint: str) -> None:
    """Refuse an index whose build settings differ from the ones asked for, naming each difference."""
    diffs = [f"{key}: index has {stored.get(key)!r}, asked for {value!r}"
             for key, value in asked.items() if stored.get(key) != value]
    if diffs:
        raise IndexMismatchError(f"{directory}: index was built with other settings ({'; '.join(diffs)}). "
                                 f"{rebuild_hint}")


def read_settings(directory: Path, kind: str) -> dict:
    path = Path(directory) / SETTINGS_FILE
    if not path.is_file():
        raise IndexMismatchError(f"{directory}: not a {kind} index (no {SETTINGS_FILE}); build it with the "
                                 f"index_{kind} rule")
    settings = read_json(path)
    if settings.get("kind") != kind:
        raise IndexMismatchError(f"{directory}: is a {settings.get('kind')!r} index, expected {kind!r}")
    return settings


def write_settings(directory: Path, settings: dict) -> None:
    (directory / SETTINGS_FILE).write_text(json_text(settings), encoding="utf-8")


def row_range(n_rows: int, shard: int, shards: int) -> tuple[int, int]:
    """Rows [start, end) of shard `shard` of `shards` near-equal contiguous ranges."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is outside 0..{shards - 1}")
    return n_rows * shard // shards, n_rows * (shard + 1) // shards
