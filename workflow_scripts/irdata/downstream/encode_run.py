"""The downstream_encode job: one shard of an evaluation collection encoded by a base or trained model (the
retrieval layer's encode_passages), kept apart from evaluation.py so that a change there reruns no encoding."""

from __future__ import annotations

import torch

from ..retrieval.dense import encode_passages


def encode_shard(*, store, embeddings, meta, shard: int, shards: int, settings: dict, model=None,
                 training=None) -> dict:
    """The downstream_encode job: encode shard `shard` of `shards` of the passage `store` into `embeddings` and
    `meta` with settings["model"]: a trained model (its files `model`, its report `training`) or a base model
    (no file of the workflow)."""
    torch.set_num_threads(settings["threads"])
    return encode_passages(store, embeddings, meta, shard=shard, shards=shards, settings=settings)
