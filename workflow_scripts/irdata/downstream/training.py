"""The downstream training job: one arm's bi-encoder from one base model, with the 44b fine-tune loop
(irdata.eval44b.finetune: MultipleNegativesRankingLoss with the hard negative, AdamW, linear warm-up and
decay, seeded, deterministic on CPU), trained exactly `steps` steps without early stopping, so that the two
arms differ only in their positives."""

from __future__ import annotations

import logging
import os

from ..eval44b.finetune import fine_tune, save_trained
from ..json_files import read_jsonl
from ..passage_store import open_store
from ..tsv import read_id_text_tsv
from .labels import arm_examples

log = logging.getLogger(__name__)
KIND = "bi_encoder"


def loop_settings(settings: dict, examples: int) -> dict:
    """The fine-tune loop's settings for exactly settings["steps"] steps: enough epochs to reach them."""
    per_epoch = -(-examples // settings["batch_queries"])
    return {**settings, "epochs": -(-settings["steps"] // max(1, per_epoch)), "max_steps": settings["steps"],
            "negatives_per_step": 1, "eval_every": 0}


def train_arm(arm: str, rows: list[dict], queries: dict, passages, settings: dict):
    """(model, report) of one arm; settings: base_model, seed, threads, steps, batch_queries, learning_rate,
    warmup_share, scale, max_length, batch_size, query_chars, document_chars."""
    examples = arm_examples(rows, arm, queries, passages, settings["query_chars"], settings["document_chars"])
    model, report = fine_tune(KIND, examples, None, loop_settings(settings, len(examples)))
    report = {k: v for k, v in report.items() if k not in ("kind", "best", "val_queries", "epochs")}
    return model, {**report, "arm": arm, "examples": len(examples), "train_queries": len(rows)}


def run_train_arm(*, arm: str, rows, queries, store, model, report, model_dir, settings: dict) -> dict:
    """The downstream_train job: read the shared training `rows` and the train `queries` (TSV), train `arm`'s
    model on the passages of `store`, save it (its files `model`, in `model_dir`) and its `report`."""
    if str(settings["device"] or "cpu").startswith("cuda"):
        # deterministic cuBLAS, which torch.use_deterministic_algorithms requires on a GPU
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    training_rows = read_jsonl(rows)
    if not training_rows:
        raise ValueError(f"{rows}: no training query (none has both kinds of positive and a hard negative)")
    table = read_id_text_tsv(queries, "query_id", "text")
    texts = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    trained, stats = train_arm(arm, training_rows, texts, open_store(store), settings)
    stats = save_trained(trained, KIND, stats, settings["record_timing"], model_dir, report)
    log.info("trained %s from %s: %d steps on %d examples; sha256 %s", arm, settings["base_model"], stats["steps"],
             stats["examples"], stats["model_sha256"])
    return stats
