"""Pieces shared by the BM25 and dense indexes: the collection's row order, ids, hits, settings checks.

Both indexes number passages by their row in the collection sorted by id (numerically when every id
is an integer, as MS MARCO pids are). Breaking score ties by row is then breaking them by id, and a
BM25 and a dense index built from the same collection agree on every row number.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc as ipc

from ..tsv import read_id_text_tsv

IDS_FILE = "ids.arrow"
SETTINGS_FILE = "settings.json"
_INT_ID = r"^(0|[1-9][0-9]{0,17})$"  # canonical integers that fit int64 ("012" is a string id)


class IndexMismatchError(ValueError):
    """An index on disk was built with other settings (tokenizer, model, collection) than asked for."""


def _numeric_ids(ids: pa.ChunkedArray | pa.Array) -> bool:
    return len(ids) > 0 and pc.all(pc.match_substring_regex(ids, _INT_ID)).as_py()


def sort_by_id(table: pa.Table, id_name: str = "id") -> pa.Table:
    """The table in canonical id order (numeric when all ids are integers, else by code point)."""
    ids = table.column(id_name)
    key = pc.cast(ids, pa.int64()) if _numeric_ids(ids) else ids
    order = pc.sort_indices(key)
    if pc.all(pc.equal(order, pa.array(np.arange(len(order))))).as_py():
        return table  # MS MARCO's collection.tsv is already in pid order: skip the copy
    return table.take(order)


def load_collection(path) -> pa.Table:
    """Read a `pid<TAB>text` collection (validated: UTF-8, two fields, unique non-empty ids), id-sorted."""
    return sort_by_id(read_id_text_tsv(path, "id", "text"))


def collection_table(collection) -> pa.Table:
    """A collection given as a `pid<TAB>text` path or an (id, text) table: checked, in id order."""
    if isinstance(collection, (str, Path)):
        return load_collection(collection)  # the reader refuses empty files and duplicate ids
    if collection.num_rows == 0:
        raise ValueError("the collection is empty; nothing to index")
    ids = collection.column("id")
    if pc.count_distinct(ids).as_py() != len(ids):
        dup = ids.to_pandas().duplicated().to_numpy().argmax()
        raise ValueError(f"duplicate passage id {ids[int(dup)].as_py()!r}; ids must be unique")
    return sort_by_id(collection)


def ids_digest(ids: pa.ChunkedArray | pa.Array) -> str:
    """Fingerprint of the ordered id list: indexes and embedding shards must agree on it."""
    return hashlib.sha256(_chunk_bytes(pa.chunked_array(ids).combine_chunks())).hexdigest()


def _chunk_bytes(chunk: pa.Array) -> bytes:
    # offsets + data of the string array: the ids and their boundaries, without a Python loop
    chunk = pc.cast(chunk, pa.large_string())
    _, offsets, data = chunk.buffers()
    start, end = chunk.offset, chunk.offset + len(chunk)
    offs = np.frombuffer(offsets, dtype=np.int64)[start:end + 1]
    body = np.frombuffer(data, dtype=np.uint8)[offs[0]:offs[-1]] if data is not None else np.empty(0, np.uint8)
    return (offs - offs[0]).tobytes() + body.tobytes()


def write_ids(directory: Path, ids: pa.ChunkedArray | pa.Array) -> None:
    ids = pa.chunked_array(ids).combine_chunks()
    table = pa.table({"id": ids}, metadata={"numeric": str(_numeric_ids(ids))})
    with ipc.new_file(directory / IDS_FILE, table.schema) as writer:
        writer.write_table(table)


class IdMap:
    """The ids of an index, memory-mapped; maps rows to ids and ids to rows."""

    def __init__(self, directory: Path):
        table = ipc.open_file(pa.memory_map(str(directory / IDS_FILE))).read_all()
        self.ids = table.column("id")
        self.numeric = table.schema.metadata[b"numeric"] == b"True"
        self._keys = None

    def __len__(self) -> int:
        return len(self.ids)

    def take(self, rows: np.ndarray) -> np.ndarray:
        return np.asarray(self.ids.take(pa.array(rows)).to_pylist(), dtype=object)

    def rows_of(self, ids) -> np.ndarray:
        """Rows of the given ids; ids not in the collection are dropped (they can never be hits)."""
        ids = list(ids)
        if not ids:
            return np.empty(0, dtype=np.int64)
        if self._keys is None:
            # sorted keys, built once: a binary search per lookup instead of a hash table per call
            self._keys = (pc.cast(self.ids, pa.int64()).to_numpy() if self.numeric
                          else np.asarray(self.ids.to_pylist(), dtype=str))
        if self.numeric:
            wanted = np.array([int(i) for i in map(str, ids) if re.fullmatch(_INT_ID, i)], dtype=np.int64)
        else:
            wanted = np.asarray([str(i) for i in ids], dtype=str)
        if len(wanted) == 0:
            return np.empty(0, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self._keys, wanted), len(self._keys) - 1)
        found = pos[self._keys[pos] == wanted]
        return np.unique(found)


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
    settings = json.loads(path.read_text(encoding="utf-8"))
    if settings.get("kind") != kind:
        raise IndexMismatchError(f"{directory}: is a {settings.get('kind')!r} index, expected {kind!r}")
    return settings


def write_settings(directory: Path, settings: dict) -> None:
    (directory / SETTINGS_FILE).write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def row_range(n_rows: int, shard: int, shards: int) -> tuple[int, int]:
    """Rows [start, end) of shard `shard` of `shards` near-equal contiguous ranges."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is outside 0..{shards - 1}")
    return n_rows * shard // shards, n_rows * (shard + 1) // shards
