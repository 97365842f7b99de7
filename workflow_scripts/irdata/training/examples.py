"""Training examples as the library's trainers read them: a columnar `datasets.Dataset`, one row per example,
the query first, then its positive, then its hard negatives (sentence-transformers maps columns by order:
anchor, positive, negative_1, ...; no label column, so the losses take the first candidate as the positive).

An example is {"note_id", "query", "docs": [positive, negative, ...]} (irdata.eval44b.finetune.training_examples,
irdata.downstream.labels.arm_examples). Every example keeps the same number of negatives, a seeded sample of its
own when it has more (sampled once per example: the trainer's epochs then differ only in their order).
"""

from __future__ import annotations

import hashlib
import random


def _sample(example: dict, k: int, seed: int) -> list[str]:
    negatives = example["docs"][1:]
    if k < len(negatives):
        # the hand-written loop's first-epoch sample (irdata.eval44b.metrics.query_rng's construction): depends on
        # the seed and the example's id alone, not on order
        digest = hashlib.sha256(f"{seed}:negatives:1:{example['note_id']}".encode("utf-8")).digest()
        negatives = random.Random(int.from_bytes(digest[:8], "big")).sample(negatives, k)
    return negatives


def training_dataset(examples: list[dict], negatives: int | None, seed: int):
    """The examples as a Dataset (columns query, positive, negative_1..negative_k); k = `negatives` (None: all),
    no more than the fewest any example has."""
    from datasets import Dataset

    if not examples:
        raise ValueError("no train examples: nothing to train on")
    fewest = min(len(ex["docs"]) - 1 for ex in examples)
    k = fewest if negatives is None else min(negatives, fewest)
    sampled = [_sample(ex, k, seed) for ex in examples]
    columns = {"query": [ex["query"] for ex in examples], "positive": [ex["docs"][0] for ex in examples]}
    for i in range(k):
        columns[f"negative_{i + 1}"] = [negs[i] for negs in sampled]
    return Dataset.from_dict(columns)
