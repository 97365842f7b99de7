"""One training job through sentence-transformers' trainers, from one settings object.

- cross_encoder: CrossEncoderTrainer; per query a softmax cross-entropy over the raw logits of its positive and
  its hard negatives (the library's cross-encoder MultipleNegativesRankingLoss with no in-batch negatives, no
  activation and scale 1: the localized-contrastive loss of rerankers, as the hand-written loop computed it).
- bi_encoder: SentenceTransformerTrainer with MultipleNegativesRankingLoss (`scale` x cosine similarity of each
  query to every document of the batch, hard negatives included), or CachedMultipleNegativesRankingLoss with
  `mini_batch_size` when the batch is larger than that (GradCache: the same loss, the memory of a mini-batch),
  batches without duplicate texts (BatchSamplers.NO_DUPLICATES), as the library's MS MARCO examples train.

AdamW (weight decay 0.01), linear warm-up over `warmup_share` of the planned steps, then linear decay; `seed`
seeds the model's new weights, dropout and the batch order; on the CPU torch runs deterministic algorithms on
`threads` threads, so the same inputs and settings give byte-identical models. `precision` bf16 or fp16 trains in
mixed precision where the device has it (refused elsewhere). With `gpus` > 1 the job starts the training under
torchrun, one process a GPU (irdata.training.worker), data-parallel: each process takes `batch_queries / gpus`
examples a step and the bi-encoder's loss gathers the embeddings of all of them, so a step means what it means on
one GPU; the validation-based selection of the 44b fine-tunes trains on one.

With a `checkpoint_dir` the trainer saves a checkpoint every `save_steps` steps and a job started again resumes
from the last whole one (optimizer, schedule, random states, batch position and the evaluation record); the
folder also holds a fingerprint of what is trained, so a checkpoint of other inputs or settings is never resumed.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path

from .callbacks import STATE_FILE, BestCheckpoint

log = logging.getLogger(__name__)

KINDS = ("cross_encoder", "bi_encoder")
PRECISIONS = ("fp32", "bf16", "fp16")
FINGERPRINT_FILE = "fingerprint.json"
# settings that change no trained weight: a checkpoint of another value of these is still resumed
_NOT_IDENTITY = ("save_steps", "record_timing", "batch_size")
# the module torchrun starts once a GPU (launch), and where irdata is importable from in its processes
WORKER = "irdata.training.worker"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def device_of(settings: dict) -> str:
    return settings.get("device") or "cpu"


def check_precision(settings: dict) -> str:
    """The precision, refused with what to do where the device lacks it."""
    import torch

    precision, device = settings.get("precision") or "fp32", device_of(settings)
    if precision not in PRECISIONS:
        raise ValueError(f"training precision must be one of {PRECISIONS}, got {precision!r}")
    on_cuda = device.startswith("cuda")
    if precision == "fp16" and not on_cuda:
        raise ValueError(f"precision fp16 needs a CUDA device (device is {device!r}): set precision fp32 or bf16")
    if precision == "bf16" and on_cuda and not (torch.cuda.is_available() and torch.cuda.is_bf16_supported()):
        raise ValueError(f"precision bf16: device {device!r} has no bf16 support: set precision fp16 or fp32")
    return precision


def gpus_of(settings: dict) -> int:
    return settings.get("gpus") or 1


def world_size() -> int:
    """Processes of this training (torchrun's WORLD_SIZE; 1 outside it)."""
    return int(os.environ.get("WORLD_SIZE", "1"))


def check_gpus(settings: dict, evaluate=None) -> None:
    gpus = gpus_of(settings)
    if gpus > 1 and evaluate is not None:
        raise ValueError(f"training gpus {gpus}: the validation-based selection (the 44b fine-tunes) trains on one "
                         "GPU; set eval44b.finetune.gpus: 1")
    if gpus > 1 and settings["batch_queries"] % gpus:
        raise ValueError(f"training batch_queries {settings['batch_queries']} does not split over gpus {gpus}: "
                         "make it a multiple")
    if world_size() not in (1, gpus):
        raise ValueError(f"training gpus {gpus}, but torchrun started {world_size()} processes")


def load_base(kind: str, settings: dict):
    """The base model on the settings' device; the cross-encoder's new one-logit head is drawn from torch's
    seeded generator."""
    from ..retrieval.dense import model_path

    path, device = model_path(settings["base_model"]), device_of(settings)
    if kind == "cross_encoder":
        from sentence_transformers import CrossEncoder

        model = CrossEncoder(path, num_labels=1, device=device)
    else:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(path, device=device)
    model.max_seq_length = settings["max_length"]
    return model


def make_loss(kind: str, model, settings: dict):
    """The library loss of `kind`; the cached variant when the batch exceeds `mini_batch_size`."""
    mini = settings.get("mini_batch_size")
    cached = bool(mini) and settings["batch_queries"] > mini
    if kind == "cross_encoder":
        from sentence_transformers.cross_encoder import losses

        base = losses.CachedMultipleNegativesRankingLoss if cached else losses.MultipleNegativesRankingLoss

        class HardNegativesOnly(base):
            """The library's loss over each query's own positive and hard negatives only: its num_negatives=0
            asks torch.multinomial for 0 samples and fails, so the in-batch sampler yields nothing instead."""

            def get_in_batch_negatives(self, anchors, candidates):
                return iter(())

        extra = {"mini_batch_size": mini} if cached else {}
        return HardNegativesOnly(model, num_negatives=None, scale=1.0, activation_fn=None, **extra)
    from sentence_transformers.sentence_transformer import losses

    scale = settings.get("scale", 20.0)
    gather = world_size() > 1  # in-batch negatives from every process's share of the step
    if cached:
        return losses.CachedMultipleNegativesRankingLoss(model, scale=scale, mini_batch_size=mini,
                                                         gather_across_devices=gather)
    return losses.MultipleNegativesRankingLoss(model, scale=scale, gather_across_devices=gather)


def planned_steps(settings: dict, examples: int) -> int:
    """`max_steps` if set, else `epochs` passes of `batch_queries` examples a step."""
    per_epoch = -(-examples // settings["batch_queries"])
    total = per_epoch * settings.get("epochs", 1)
    return min(total, settings["max_steps"]) if settings.get("max_steps") else total


def training_arguments(kind: str, settings: dict, output_dir: str, steps: int, checkpoints: bool):
    from sentence_transformers.base.sampler import BatchSamplers

    precision = check_precision(settings)
    common = dict(
        output_dir=output_dir, per_device_train_batch_size=settings["batch_queries"] // world_size(), max_steps=steps,
        num_train_epochs=settings.get("epochs", 1), learning_rate=settings["learning_rate"], weight_decay=0.01,
        warmup_steps=int(settings["warmup_share"] * steps), lr_scheduler_type="linear", optim="adamw_torch",
        seed=settings["seed"], data_seed=settings["seed"], bf16=precision == "bf16", fp16=precision == "fp16",
        use_cpu=device_of(settings) == "cpu", logging_strategy="steps", logging_steps=1, report_to=[],
        disable_tqdm=True, dataloader_num_workers=0, eval_strategy="no",
        save_strategy="steps" if checkpoints else "no", save_steps=settings.get("save_steps") or steps,
        save_total_limit=2, save_only_model=False,
        batch_sampler=BatchSamplers.NO_DUPLICATES if kind == "bi_encoder" else BatchSamplers.BATCH_SAMPLER,
    )
    if kind == "cross_encoder":
        from sentence_transformers import CrossEncoderTrainingArguments

        return CrossEncoderTrainingArguments(**common)
    from sentence_transformers import SentenceTransformerTrainingArguments

    return SentenceTransformerTrainingArguments(**common)


def fingerprint(kind: str, dataset, settings: dict) -> str:
    """sha256 of what decides the trained weights: the kind, the settings and the training rows."""
    digest = hashlib.sha256(json.dumps({"kind": kind, **{k: v for k, v in settings.items() if k not in _NOT_IDENTITY}},
                                       sort_keys=True, default=str).encode("utf-8"))
    for name in dataset.column_names:  # the Arrow buffers as they are: columnar, no row loop
        digest.update(name.encode("utf-8"))
        for chunk in dataset.data.table.column(name).chunks:
            for buffer in chunk.buffers():
                if buffer is not None:
                    digest.update(buffer)
    return digest.hexdigest()


def last_checkpoint(folder: Path) -> Path | None:
    """The latest checkpoint the callback finished writing (STATE_FILE is its last file)."""
    done = [p for p in folder.glob("checkpoint-*") if (p / STATE_FILE).is_file() and p.name[11:].isdigit()]
    return max(done, key=lambda p: int(p.name[11:]), default=None)


def prepare_checkpoints(folder: Path, identity: str) -> Path | None:
    """The checkpoint to resume from in `folder`, or None; a folder of another training is emptied first."""
    mark = folder / FINGERPRINT_FILE
    if folder.is_dir() and (not mark.is_file() or json.loads(mark.read_text())["sha256"] != identity):
        log.info("%s holds checkpoints of another training: removed", folder)
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if not mark.is_file():
        from ..atomic import write_json_atomic

        write_json_atomic(mark, {"sha256": identity})
    return last_checkpoint(folder)


@contextmanager
def torch_settings(settings: dict):
    """`threads` CPU threads and deterministic algorithms for the block, the caller's settings after it."""
    import torch

    threads, deterministic = torch.get_num_threads(), torch.are_deterministic_algorithms_enabled()
    if device_of(settings).startswith("cuda"):
        # deterministic cuBLAS, which torch.use_deterministic_algorithms requires on a GPU
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.set_num_threads(settings["threads"])
    torch.use_deterministic_algorithms(True)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
        torch.use_deterministic_algorithms(deterministic)


def train(kind: str, dataset, settings: dict, evaluate=None, checkpoint_dir=None):
    """Train `kind` on `dataset` (irdata.training.examples.training_dataset); returns (model, record).

    evaluate: model -> val metrics (P@1, MRR) at each evaluation point, the best model kept and `patience` points
    without a better one stopping the training; None trains the planned steps and keeps the last model.
    checkpoint_dir: where checkpoints go (resumed from when it holds some of this training); None keeps none."""
    if kind not in KINDS:
        raise ValueError(f"unknown fine-tune kind {kind!r}; expected one of {KINDS}")
    check_gpus(settings, evaluate)
    if gpus_of(settings) > 1 and world_size() == 1:
        return launch(kind, dataset, settings, checkpoint_dir)
    with torch_settings(settings):
        return _train(kind, dataset, settings, evaluate, checkpoint_dir)


def _train(kind, dataset, settings, evaluate, checkpoint_dir):
    import torch
    from transformers import PrinterCallback

    torch.manual_seed(settings["seed"])
    model = load_base(kind, settings)
    steps = planned_steps(settings, dataset.num_rows)
    selection = BestCheckpoint(evaluate, settings.get("eval_every") or 0, settings.get("patience") or 1, kind)
    with tempfile.TemporaryDirectory(prefix="irdata-train-") as scratch:
        folder = Path(checkpoint_dir) if checkpoint_dir else Path(scratch)
        if not checkpoint_dir:
            resume = None
        elif world_size() > 1:  # the launching job prepared the folder (launch)
            resume = last_checkpoint(folder)
        else:
            resume = prepare_checkpoints(folder, fingerprint(kind, dataset, settings))
        if resume is not None:
            log.info("resuming %s from %s", kind, resume)
            selection.restore(resume)
        args = training_arguments(kind, settings, str(folder), steps, checkpoint_dir is not None)
        if kind == "cross_encoder":
            from sentence_transformers import CrossEncoderTrainer as LibraryTrainer
        else:
            from sentence_transformers import SentenceTransformerTrainer as LibraryTrainer

        class Trainer(LibraryTrainer):
            def add_model_card_callback(self, default_args_dict):
                """No model card is saved (it would carry dates), so nothing is gathered for one (the library's
                documented way to drop it): no widget examples drawn from the training set."""

        trainer = Trainer(model=model, args=args, train_dataset=dataset, loss=make_loss(kind, model, settings),
                          callbacks=[selection])
        trainer.remove_callback(PrinterCallback)  # a line a step; the callback logs the evaluation points
        trainer.train(resume_from_checkpoint=str(resume) if resume is not None else None)
        state = trainer.state
    if selection.best_state is not None:
        model.load_state_dict(selection.best_state)
    record = {"steps": state.global_step, "planned_steps": steps, "evaluations": selection.evaluations,
              "best": selection.best, "resumed_from": int(resume.name[11:]) if resume is not None else None}
    return model, record


def remove_checkpoints(checkpoint_dir) -> None:
    """Once the model is saved its checkpoints are of no use."""
    if checkpoint_dir and Path(checkpoint_dir).is_dir():
        shutil.rmtree(checkpoint_dir)


def launch(kind: str, dataset, settings: dict, checkpoint_dir):
    """Train under torchrun with settings["gpus"] processes; (model, record) as trainer.train returns them."""
    from ..atomic import write_json_atomic

    gpus = settings["gpus"]
    if checkpoint_dir:
        prepare_checkpoints(Path(checkpoint_dir), fingerprint(kind, dataset, settings))
    with tempfile.TemporaryDirectory(prefix="irdata-launch-") as folder:
        folder = Path(folder)
        dataset.save_to_disk(str(folder / "dataset"))
        spec = {"kind": kind, "settings": settings, "dataset": str(folder / "dataset"),
                "checkpoint_dir": str(checkpoint_dir) if checkpoint_dir else None, "out": str(folder / "out")}
        write_json_atomic(folder / "spec.json", spec)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PACKAGE_ROOT),
                                                                          os.environ.get("PYTHONPATH")]))}
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={gpus}",
                   "-m", WORKER, str(folder / "spec.json")]
        done = subprocess.run(command, env=env)
        if done.returncode:
            raise RuntimeError(f"training under torchrun ({' '.join(command)}) failed with exit code "
                               f"{done.returncode}; its processes' errors are above in this log")
        record = json.loads((folder / "out" / "record.json").read_text(encoding="utf-8"))
        model = load_base(kind, {**settings, "base_model": str(folder / "out" / "model")})
    return model, record
