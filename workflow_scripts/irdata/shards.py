"""Queries to shards: stable sharding and sampling of query ids, and the per-shard id lists.

A query's shard depends on its id alone (a hash), so adding a query moves no other query, and the shard
count, not the query count, sets the number of jobs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from .atomic import write_lines_atomic
from .errors import InputError
from .path_kinds import FILE, path_problem
from .tsv import id_problem


def read_id_list(path) -> list[str]:
    """Ids one a line (blank lines skipped), UTF-8 with or without a byte-order mark, LF or CRLF line ends: no
    whitespace or control character inside or around an id (irdata.tsv.id_problem), no repeats."""
    path = Path(path)
    problem = path_problem(path, FILE)  # a folder, a pipe (whose read would hang), a link to nothing
    if problem:
        raise InputError(path, problem)
    data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = exc.start - data.rfind(b"\n", 0, exc.start)
        raise InputError(path, f"not valid UTF-8 (byte {byte} of the line); re-encode the file as UTF-8",
                         line=data.count(b"\n", 0, exc.start) + 1) from None
    lines = text.replace("\r\n", "\n").split("\n")
    if not "".join(lines).isprintable() or " " in text:  # the common case (printable ids) in one pass
        for number, line in enumerate(lines, start=1):
            problem = id_problem(line) if line else None
            if problem:
                raise InputError(path, problem, line=number)
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


def shard_of(ids, n_shards: int) -> np.ndarray:
    """Shard index in [0, n_shards) of every id (blake2b of the id, so stable across runs and machines)."""
    if n_shards < 1:
        raise ValueError(f"n_shards must be >= 1, got {n_shards}")
    keys = np.fromiter(
        (int.from_bytes(hashlib.blake2b(str(i).encode(), digest_size=8).digest(), "big") for i in ids),
        dtype=np.uint64,
        count=len(ids),
    )
    return (keys % np.uint64(n_shards)).astype(np.int64)


def sample_ids(ids, size: int | None, seed: int) -> np.ndarray:
    """Boolean mask selecting a deterministic sample of `size` ids (all when size is None).

    An id is kept when its seeded hash is among the `size` smallest, so the choice depends only
    on the ids and the seed, not on file order.
    """
    n = len(ids)
    if size is None or size >= n:
        return np.ones(n, dtype=bool)
    prefix = f"{seed}:".encode()
    keys = np.fromiter(
        (int.from_bytes(hashlib.blake2b(prefix + str(i).encode(), digest_size=8).digest(), "big") for i in ids),
        dtype=np.uint64,
        count=n,
    )
    order = np.argsort(keys, kind="stable")
    mask = np.zeros(n, dtype=bool)
    mask[order[:size]] = True
    return mask


def size_shard_count(path, shard_mb: float) -> int:
    """How many encoding jobs a collection gets: its source file's size over `shard_mb` MiB, at least one (a
    missing file, or none known before the input check (None), counts as empty; it fails in the rule that reads it)."""
    size = Path(path).stat().st_size if path is not None and Path(path).is_file() else 0
    return max(1, -(-size // int(shard_mb * 2**20)))


def write_query_shards(*, train, dev, train_shards, dev_shards) -> dict[str, list[int]]:
    """The shard_queries rule: the `train` and `dev` id lists, each into its shard files; each split's shard sizes."""
    return {"train": write_shards(train, list(train_shards)), "dev": write_shards(dev, list(dev_shards))}
