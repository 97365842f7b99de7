"""Reranking metrics over the rank of each query's one positive among its candidates.

With one relevant candidate per query, P@k here is the share of queries whose positive is in the
top k (success@k, the card's P@k: its P@3 of 0.982 can only be that). MRR is the mean of 1/rank,
mean rank the mean of the rank (1 = best). Chance on 9 candidates: P@k = k/9, MRR = H(9)/9, mean rank 5.
"""

from __future__ import annotations

import hashlib
import random

METRICS = ("P@1", "P@2", "P@3", "MRR", "mean_rank")


def metrics_from_ranks(ranks) -> dict:
    ranks = list(ranks)
    if not ranks:
        return {name: None for name in METRICS}
    if any(int(r) != r or r < 1 for r in ranks):
        raise ValueError("ranks are 1-based integers")
    n = len(ranks)
    return {
        "P@1": sum(r <= 1 for r in ranks) / n,
        "P@2": sum(r <= 2 for r in ranks) / n,
        "P@3": sum(r <= 3 for r in ranks) / n,
        "MRR": sum(1 / r for r in ranks) / n,
        "mean_rank": sum(ranks) / n,
    }


def chance_metrics(n_candidates: int = 9) -> dict:
    c = n_candidates
    return {
        "P@1": 1 / c,
        "P@2": min(2, c) / c,
        "P@3": min(3, c) / c,
        "MRR": sum(1 / r for r in range(1, c + 1)) / c,
        "mean_rank": (c + 1) / 2,
    }


def query_rng(seed: int, qid: str) -> random.Random:
    """A random generator that depends only on the seed and the query id (not on order or sharding)."""
    digest = hashlib.sha256(f"{seed}:{qid}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))
