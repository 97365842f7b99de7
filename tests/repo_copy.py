"""A fresh copy of the working tree, for tests that run the workflow without touching the repository."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY_DEMO = REPO / "tests/tiny_demo.yaml"


def repo_files() -> list[str]:
    """Tracked and untracked-but-not-ignored files: what a fresh clone of the working tree holds."""
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO,
                         check=True, capture_output=True).stdout.decode()
    return [f for f in out.split("\0") if f and (REPO / f).is_file()]


def copy_repo(dest: Path) -> Path:
    for rel in repo_files():
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, target)
    return dest
