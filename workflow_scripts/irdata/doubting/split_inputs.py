"""The split-wide inputs of `assemble`: the shard lists (which must partition the split's ids), the
official qrels grouped by shard, the acquisition batches and the excluded train queries."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import InputError
from ..shards import read_id_list
from ..train_excluded import EXCLUDED_COLUMNS
from ..tsv import read_trec_qrels
from .release_files import STRING
from .shard_join import ShardPaths


def _concat(arrays: list[pa.Array]) -> pa.Array:
    return pa.chunked_array(arrays, STRING).combine_chunks() if arrays else pa.array([], STRING)


def read_shard_lists(split: str, paths: list[ShardPaths], split_ids: list[str], split_path) -> list[pa.Array]:
    """The query ids of every shard, checked to partition `split_ids` (one membership test over all shards)."""
    shard_ids = [pa.array(read_id_list(p.ids), STRING) for p in paths]
    total = sum(len(a) for a in shard_ids)
    listed = _concat(shard_ids)
    if pc.count_distinct(listed).as_py() != total:
        raise InputError(paths[0].ids, f"the {split} shard lists overlap; shards must partition the queries")
    outside = pc.invert(pc.is_in(listed, value_set=pa.array(split_ids, STRING)))
    if pc.any(outside).as_py():
        row = pc.index(outside, True).as_py()
        shard = int(np.searchsorted(np.cumsum([len(a) for a in shard_ids]), row, side="right"))
        raise InputError(paths[shard].ids, f"query {listed[row].as_py()!r} is not in {split_path}",
                         field="query_id")
    if total != len(split_ids):
        raise InputError(split_path, f"{len(split_ids) - total} query id(s) are in no {split} shard list; "
                         "rerun shard_queries")
    return shard_ids


class OfficialQrels:
    """Official positives (relevance >= 1) of one split, grouped by shard."""

    def __init__(self, path, shard_ids: list[pa.Array]):
        table = read_trec_qrels(path)
        table = table.filter(pc.greater_equal(table.column("relevance"), 1))
        shard_of_id = np.concatenate([np.full(len(a), i) for i, a in enumerate(shard_ids)] + [np.zeros(0, int)])
        position = pc.index_in(table.column("query_id"), value_set=_concat(shard_ids))
        # positives of queries outside the split (excluded or not sampled) are not used
        known = pc.is_valid(position)
        table, position = table.filter(known), position.filter(known).to_numpy(zero_copy_only=False)
        shard = shard_of_id[position] if len(position) else np.zeros(0, int)
        order = np.argsort(shard, kind="stable")
        self.table = table.take(pa.array(order, pa.int64()))
        self.bounds = np.searchsorted(shard[order], np.arange(len(shard_ids) + 1))

    def shard(self, i: int) -> pa.Table:
        return self.table.slice(self.bounds[i], self.bounds[i + 1] - self.bounds[i])


@dataclass
class Batches:
    """Acquisition batches of one split: a query's batch is the batch whose checked ids hold it, else `default`."""
    default: str
    batches: list[tuple[str, pa.Array]] = field(default_factory=list)

    @classmethod
    def from_record(cls, split: dict) -> Batches:
        """The batches of one split of check_acquisition_batches' record (irdata/doubting/acquisition_batches.py)."""
        return cls(split["default"], [(batch["name"], pa.array(batch["ids"], STRING)) for batch in split["batches"]])

    @property
    def names(self) -> list[str]:
        return [self.default] + [name for name, _ in self.batches]

    def assign(self, shard_ids: pa.Array) -> pa.Array:
        names = np.full(len(shard_ids), self.default, dtype=object)
        for name, ids in self.batches:
            names[pc.is_in(shard_ids, value_set=ids).to_numpy(zero_copy_only=False)] = name
        return pa.array(names, STRING)


def read_excluded(path) -> list[list[str]]:
    """ids/train_excluded.tsv's rows (irdata.train_excluded.EXCLUDED_COLUMNS)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines or lines[0].split("\t") != EXCLUDED_COLUMNS:
        raise InputError(path, f"header must be {'<TAB>'.join(EXCLUDED_COLUMNS)}", line=1)
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        parts = line.split("\t")
        if len(parts) != len(EXCLUDED_COLUMNS) or not all(parts):
            raise InputError(path, f"expected {len(EXCLUDED_COLUMNS)} non-empty tab-separated fields", line=number)
        rows.append(parts)
    return rows
