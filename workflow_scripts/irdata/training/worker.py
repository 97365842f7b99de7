"""Several GPUs a training job: the job saves its examples and settings, starts this module under torchrun with one
process a GPU, and reads back the model that rank 0 saved.

    python -m torch.distributed.run --standalone --nproc_per_node N -m irdata.training.worker SPEC_JSON

(irdata.training.trainer.launch builds that command; the job's own process trains nothing.)"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path


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
