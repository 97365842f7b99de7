"""Writing the per-shard query id lists that the per-shard stages read."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .atomic import write_lines_atomic
from .sharding import shard_of


def read_id_list(path) -> list[str]:
    return [line for line in Path(path).read_text(encoding="utf-8").splitlines() if line]


def write_shards(ids_path, shard_paths: list[str]) -> list[int]:
    """Split the ids of `ids_path` over `shard_paths` (shard i = paths[i]), keeping file order."""
    ids = read_id_list(ids_path)
    shard = shard_of(ids, len(shard_paths))
    ids_array = np.array(ids, dtype=object)
    sizes = []
    for i, path in enumerate(shard_paths):
        members = ids_array[shard == i].tolist()
        write_lines_atomic(path, members)
        sizes.append(len(members))
    return sizes
# edit
