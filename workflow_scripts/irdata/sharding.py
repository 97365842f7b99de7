"""Stable sharding of query ids: a query's shard depends on its id alone, so adding a query
moves no other query, and the shard count, not the query count, sets the number of jobs."""

from __future__ import annotations

import hashlib

import numpy as np


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
