"""Several GPUs a training job: the job saves its examples and settings, starts this module under torchrun with one
process a GPU, and reads back the model that rank 0 saved.

    python -m torch.distributed.run --standalone --nproc_per_node N -m irdata.training.worker SPEC_JSON

(launch() builds that command; the job's own process trains nothing.)"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # workflow_scripts/, where irdata is importable from


def launch(kind: str, dataset, settings: dict, checkpoint_dir):
    """Train under torchrun with settings["gpus"] processes; (model, record) as trainer.train returns them."""
    import tempfile

    from ..atomic import write_json_atomic
    from .trainer import fingerprint, load_base, prepare_checkpoints

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
                   "-m", "irdata.training.worker", str(folder / "spec.json")]
        done = subprocess.run(command, env=env)
        if done.returncode:
            raise RuntimeError(f"training under torchrun ({' '.join(command)}) failed with exit code "
                               f"{done.returncode}; its processes' errors are above in this log")
        record = json.loads((folder / "out" / "record.json").read_text(encoding="utf-8"))
        model = load_base(kind, {**settings, "base_model": str(folder / "out" / "model")})
    return model, record


def main(spec_path: str) -> None:
    from datasets import load_from_disk

    from ..atomic import write_json_atomic
    from .trainer import train

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    model, record = train(spec["kind"], load_from_disk(spec["dataset"]), spec["settings"], None,
                          spec["checkpoint_dir"])
    if int(os.environ.get("RANK", "0")) == 0:
        out = Path(spec["out"])
        shutil.rmtree(out, ignore_errors=True)
        model.save(str(out / "model"), create_model_card=False)
        write_json_atomic(out / "record.json", record)


if __name__ == "__main__":
    main(sys.argv[1])
