"""The downstream training job: one arm's bi-encoder from one base model through the training room
(irdata.training: sentence-transformers' trainer, MultipleNegativesRankingLoss with the hard negative, AdamW,
linear warm-up and decay, seeded, deterministic on the CPU, resumable from checkpoints), trained exactly `steps`
steps without early stopping, so that the two arms differ only in their positives."""

from __future__ import annotations

import logging
import time

from ..json_files import read_jsonl
from ..passage_store import open_store
from ..training.examples import training_dataset
from ..training.models import checkpoint_folder, save_trained
from ..training.trainer import remove_checkpoints, train
from ..tsv import read_id_text_tsv
from .labels import arm_examples

log = logging.getLogger(__name__)
KIND = "bi_encoder"


def trainer_settings(settings: dict) -> dict:
    """The trainer's settings for exactly settings["steps"] steps, no evaluation point but the last."""
    return {**settings, "max_steps": settings["steps"], "epochs": 10**6, "eval_every": 0}


def train_arm(arm: str, rows: list[dict], queries: dict, passages, settings: dict, checkpoint_dir=None):
    """(model, report) of one arm; settings: base_model, seed, threads, device, precision, mini_batch_size,
    save_steps, steps, batch_queries, learning_rate, warmup_share, scale, max_length, batch_size, query_chars,
    document_chars."""
    examples = arm_examples(rows, arm, queries, passages, settings["query_chars"], settings["document_chars"])
    start = time.perf_counter()
    model, record = train(KIND, training_dataset(examples, 1, settings["seed"]), trainer_settings(settings),
                          None, checkpoint_dir)
    report = {"base_model": settings["base_model"], "parameters": sum(p.numel() for p in model.parameters()),
              "steps": record["steps"], "planned_steps": record["planned_steps"],
              "evaluations": record["evaluations"], "train_seconds": round(time.perf_counter() - start, 1),
              "threads": settings["threads"], "seed": settings["seed"]}
    return model, {**report, "arm": arm, "examples": len(examples), "train_queries": len(rows)}


def run_train_arm(*, arm: str, rows, queries, store, model, report, model_dir, settings: dict) -> dict:
    """The downstream_train job: read the shared training `rows` and the train `queries` (TSV), train `arm`'s
    model on the passages of `store`, save it (its files `model`, in `model_dir`) and its `report`."""
    training_rows = read_jsonl(rows)
    if not training_rows:
        raise ValueError(f"{rows}: no training query (none has both kinds of positive and a hard negative)")
    table = read_id_text_tsv(queries, "query_id", "text")
    texts = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    checkpoints = checkpoint_folder(model_dir)
    trained, stats = train_arm(arm, training_rows, texts, open_store(store), settings, checkpoints)
    stats = save_trained(trained, KIND, stats, settings["record_timing"], model_dir, report)
    remove_checkpoints(checkpoints)
    log.info("trained %s from %s: %d steps on %d examples; sha256 %s", arm, settings["base_model"], stats["steps"],
             stats["examples"], stats["model_sha256"])
    return stats
