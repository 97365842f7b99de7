"""The training room (irdata/training/) on the tiny BERT of the 44b tests: a job killed with SIGKILL after a
checkpoint and started again ends with the model and report of an uninterrupted run, byte for byte on the CPU;
each 44b evaluation point is scored exactly once; checkpoints of other settings are not resumed; losses and
precisions are the ones asked for."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irdata.retrieval.dense import model_fingerprint
from irdata.training.trainer import check_precision, last_checkpoint, make_loss, planned_steps
from unit.eval44b_tiny import tiny_sentence_transformer

JOB = Path(__file__).with_name("training_job.py")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_sentence_transformer(tmp_path_factory.mktemp("tiny"))


def job(kind, tiny, out: Path, settings: dict) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(JOB), kind, tiny, str(out), json.dumps(settings)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def kill_after_checkpoint(process: subprocess.Popen, checkpoints: Path, timeout: float = 300) -> int:
    """SIGKILL the job as soon as it has finished writing a checkpoint; the checkpoint's step."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = last_checkpoint(checkpoints) if checkpoints.is_dir() else None
        if found is not None:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            return int(found.name.split("-")[1])
        assert process.poll() is None, f"the job ended before its first checkpoint: {process.stderr.read()}"
        time.sleep(0.01)
    raise AssertionError("no checkpoint within the timeout")


def run_to_end(kind, tiny, out: Path, settings: dict) -> dict:
    process = job(kind, tiny, out, settings)
    _, err = process.communicate()
    assert process.returncode == 0, err
    return json.loads((out / "report.json").read_text())


@pytest.mark.parametrize("kind, settings", [
    ("downstream", {"steps": 30, "save_steps": 4}),
    ("cross_encoder", {"save_steps": 2, "max_steps": None, "patience": 10}),
])
def test_a_killed_job_resumes_to_the_uninterrupted_model(kind, settings, tiny, tmp_path):
    whole = run_to_end(kind, tiny, tmp_path / "whole", settings)
    checkpoints = tmp_path / "killed" / "model.checkpoints"
    step = kill_after_checkpoint(job(kind, tiny, tmp_path / "killed", settings), checkpoints)
    assert step < whole["steps"] and not (tmp_path / "killed" / "model").exists()
    resumed = run_to_end(kind, tiny, tmp_path / "killed", settings)
    assert not checkpoints.exists()  # removed once the model is saved
    assert model_fingerprint(str(tmp_path / "killed" / "model")) == model_fingerprint(str(tmp_path / "whole" / "model"))
    assert (tmp_path / "killed" / "report.json").read_bytes() == (tmp_path / "whole" / "report.json").read_bytes()
    steps = [e["step"] for e in resumed["evaluations"]]
    assert steps == sorted(set(steps))  # every point once, none lost


def test_each_44b_evaluation_point_is_scored_exactly_once(tiny, tmp_path, monkeypatch):
    """Every eval_every steps, every epoch end and the last step, once each, and nothing else is scored."""
    import irdata.eval44b.finetune as finetune
    from unit.test_eval44b_finetune import run

    scored = []
    evaluate = finetune.evaluate

    def counting(kind, model, val, settings):
        scored.append(kind)
        return evaluate(kind, model, val, settings)

    monkeypatch.setattr(finetune, "evaluate", counting)
    # 20 queries, 4 a step: 5 steps an epoch; points at 3, 5 (epoch end), 6, 9, 10 (last step and epoch end)
    report = run("cross_encoder", tiny, tmp_path / "m", patience=10)
    assert [e["step"] for e in report["evaluations"]] == [3, 5, 6, 9, 10]
    assert [e["epoch"] for e in report["evaluations"]] == [1, 1, 2, 2, 2]
    assert len(scored) == 5


def test_checkpoints_of_other_settings_are_not_resumed(tiny, tmp_path):
    from irdata.downstream.training import train_arm
    from irdata.training.trainer import fingerprint, prepare_checkpoints
    from unit.test_downstream import PASSAGES, SETTINGS, TRAIN, rows

    folder = tmp_path / "model.checkpoints"
    settings = {**SETTINGS, "base_model": tiny, "steps": 4, "save_steps": 2}
    # a checkpoint left by a job of another learning rate
    (folder / "checkpoint-2").mkdir(parents=True)
    (folder / "checkpoint-2" / "selection.json").write_text("{}")
    (folder / "fingerprint.json").write_text(json.dumps({"sha256": "another training"}))
    _, report = train_arm("release", rows(False), TRAIN, PASSAGES, settings, folder)
    assert report["steps"] == 4 and [e["step"] for e in report["evaluations"]] == [4]
    assert prepare_checkpoints(folder, "x") is None  # and a folder of another fingerprint is emptied
    assert fingerprint("bi_encoder", _dataset(), settings) != fingerprint("bi_encoder", _dataset(),
                                                                          {**settings, "learning_rate": 1})


def _dataset():
    from irdata.training.examples import training_dataset

    return training_dataset([{"note_id": "a", "query": "q", "docs": ["p", "n1", "n2"]}], 1, 0)


def test_the_cached_loss_takes_over_when_the_batch_exceeds_the_mini_batch(tiny):
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(tiny, device="cpu")
    base = {"batch_queries": 8, "scale": 20.0}
    assert type(make_loss("bi_encoder", model, base)).__name__ == "MultipleNegativesRankingLoss"
    assert type(make_loss("bi_encoder", model, {**base, "mini_batch_size": 8})).__name__ == \
        "MultipleNegativesRankingLoss"
    cached = make_loss("bi_encoder", model, {**base, "mini_batch_size": 2})
    assert type(cached).__name__ == "CachedMultipleNegativesRankingLoss" and cached.mini_batch_size == 2
    assert planned_steps({"batch_queries": 8, "epochs": 2, "max_steps": None}, 20) == 6
    assert planned_steps({"batch_queries": 8, "epochs": 2, "max_steps": 4}, 20) == 4


def test_several_processes_train_data_parallel_under_torchrun(tiny, tmp_path):
    """gpus 2 on the CPU: the job starts two torchrun processes (gloo), rank 0 saves, the job reads the model."""
    from irdata.downstream.training import train_arm
    from unit.test_downstream import PASSAGES, SETTINGS, TRAIN, rows

    settings = {**SETTINGS, "base_model": tiny, "steps": 4, "gpus": 2, "save_steps": 2}
    model, report = train_arm("release", rows(False), TRAIN, PASSAGES, settings, tmp_path / "ck")
    assert report["steps"] == 4 and [e["step"] for e in report["evaluations"]] == [4]
    assert sorted(p.name for p in (tmp_path / "ck").glob("checkpoint-*")) == ["checkpoint-2", "checkpoint-4"]
    model.save(str(tmp_path / "trained"), create_model_card=False)
    assert model_fingerprint(str(tmp_path / "trained")) != model_fingerprint(tiny)


def test_several_gpus_are_refused_where_they_cannot_work(monkeypatch):
    from irdata.training.trainer import check_gpus

    monkeypatch.delenv("WORLD_SIZE", raising=False)
    check_gpus({"gpus": 1, "batch_queries": 3})
    with pytest.raises(ValueError, match="validation-based selection"):
        check_gpus({"gpus": 2, "batch_queries": 8}, evaluate=lambda m: {})
    with pytest.raises(ValueError, match="does not split over gpus 2"):
        check_gpus({"gpus": 2, "batch_queries": 7})
    monkeypatch.setenv("WORLD_SIZE", "3")
    with pytest.raises(ValueError, match="torchrun started 3 processes"):
        check_gpus({"gpus": 2, "batch_queries": 8})


def test_a_precision_the_device_lacks_is_refused():
    assert check_precision({"device": None, "precision": None}) == "fp32"
    assert check_precision({"device": "cpu", "precision": "bf16"}) == "bf16"
    with pytest.raises(ValueError, match="fp16 needs a CUDA device"):
        check_precision({"device": "cpu", "precision": "fp16"})
    with pytest.raises(ValueError, match="precision must be one of"):
        check_precision({"device": "cpu", "precision": "int8"})
