"""A release folder loaded as its users load it: every config of its card's header with Hugging Face `datasets`,
offline, in a fresh interpreter."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def load_every_config(folder: Path, configs: list[dict], hf_home: Path) -> dict:
    """{config_name: num_rows} of each of the card header's `configs`, loaded with datasets offline."""
    script = (
        "import json\nfrom datasets import load_dataset\n"
        f"print(json.dumps({{c['config_name']: load_dataset({str(folder)!r}, c['config_name']).num_rows "
        f"for c in {configs!r}}}))"
    )
    env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(hf_home))
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])
