"""Writing the per-shard query id lists that the per-shard stages read."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .atomic import write_lines_atomic
from .errors import InputError
from .sharding import shard_of


def read_id_list(path) -> list[str]:
    """Ids one a line (blank lines skipped): no whitespace inside or around an id, no repeats."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if any(c in text for c in " \t\r\x0b\x0c"):
        for number, line in enumerate(lines, start=1):
            if line and (line != line.strip() or any(c.isspace() for c in line)):
                raise InputError(path, f"id {line!r} has whitespace", line=number)
    ids = [line for line in lines if line]
    if len(set(ids)) != len(ids):
        seen = set()
        for number, line in enumerate(lines, start=1):
            if line in seen:
                raise InputError(path, f"duplicate id {line!r}", line=number)
            if line:
                seen.add(line)
    return ids


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
