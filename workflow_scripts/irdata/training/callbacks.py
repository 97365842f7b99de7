"""What the trainer does at its evaluation points: the 44b's validation-based choice of the best checkpoint and
the training report's per-point record, as a transformers TrainerCallback.

An evaluation point is every `eval_every` steps, the last planned step and every epoch end not already one.
At each, the mean loss since the previous point is recorded; with an `evaluate` function the model is scored
(val P@1 and MRR), a better MRR than any before keeps a copy of the weights, and `patience` points without one
stop the training. The record, the best weights and the patience count travel with every checkpoint the
trainer saves (STATE_FILE, BEST_FILE in its folder), so a resumed run scores no point twice and loses none.
"""

from __future__ import annotations

import copy
import json
import logging
import math
from pathlib import Path

from transformers import TrainerCallback

log = logging.getLogger(__name__)

STATE_FILE = "selection.json"
BEST_FILE = "best_state.pt"


class BestCheckpoint(TrainerCallback):
    def __init__(self, evaluate, eval_every: int, patience: int, label: str = "training"):
        self.evaluate, self.eval_every, self.patience, self.label = evaluate, eval_every, patience, label
        self.evaluations: list[dict] = []
        self.best = {"step": 0, "epoch": 0, "metrics": None}
        self.best_state = None
        self.since_best = 0
        self.losses: list[float] = []

    # the record of the points so far, saved beside each checkpoint and read back on resume
    def state(self) -> dict:
        return {"evaluations": self.evaluations, "best": self.best, "since_best": self.since_best,
                "losses": self.losses}

    def restore(self, checkpoint: Path) -> None:
        import torch

        saved = json.loads((checkpoint / STATE_FILE).read_text(encoding="utf-8"))
        self.evaluations, self.best = saved["evaluations"], saved["best"]
        self.since_best, self.losses = saved["since_best"], saved["losses"]
        if (checkpoint / BEST_FILE).is_file():
            self.best_state = torch.load(checkpoint / BEST_FILE, weights_only=True)

    def _point(self, state, model) -> bool:
        """Record (and with `evaluate`, score) the point at state.global_step; True when patience ran out."""
        step = state.global_step
        if self.evaluations and self.evaluations[-1]["step"] == step:
            return False
        epoch = max(1, math.ceil(round(state.epoch, 6)))
        record = {"step": step, "epoch": epoch, "loss": round(sum(self.losses) / max(1, len(self.losses)), 6)}
        self.losses = []
        if self.evaluate is None:
            self.evaluations.append(record)
            return False
        metrics = self.evaluate(model)
        self.evaluations.append({**record, **{k: metrics[k] for k in ("P@1", "MRR")}})
        log.info("%s step %d/%d: val %s", self.label, step, state.max_steps, self.evaluations[-1])
        if self.best["metrics"] is None or metrics["MRR"] > self.best["metrics"]["MRR"]:
            self.best = {"step": step, "epoch": epoch, "metrics": metrics}
            self.best_state = copy.deepcopy(model.state_dict())
            self.since_best = 0
        else:
            self.since_best += 1
        return self.since_best >= self.patience

    def on_log(self, args, state, control, logs=None, model=None, **kwargs):
        # the trainer logs every step (logging_steps 1) after on_step_end, so a point's own step's loss is in
        if logs is None or "loss" not in logs:
            return
        self.losses.append(float(logs["loss"]))
        step = state.global_step
        if step >= state.max_steps or (self.eval_every and step % self.eval_every == 0):
            if self._point(state, model):
                control.should_training_stop = True

    def on_epoch_end(self, args, state, control, model=None, **kwargs):
        if self._point(state, model):
            control.should_training_stop = True

    def on_save(self, args, state, control, **kwargs):
        import torch

        from ..atomic import write_json_atomic

        if not state.is_world_process_zero:  # under torchrun the first process writes the checkpoint
            return
        folder = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        if self.best_state is not None:
            torch.save(self.best_state, folder / BEST_FILE)
        # written last: a checkpoint without it was cut short and is not resumed from
        write_json_atomic(folder / STATE_FILE, self.state())
