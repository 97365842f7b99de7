"""Snakemake run in a copy of the repository: the workflow tests' one way to run and dry-run it
(a module of its own, so that test files import it by a name no other conftest has)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

# rules that only name targets: `all` (the default) and one per release
TARGET_RULES = {"all", "doubting", "eval44b"}


class Workflow:
    """A copy of the workflow folder and a way to run Snakemake in it."""

    def __init__(self, root: Path):
        self.root = root

    def snakemake(self, *args, check=True, timeout=1800) -> subprocess.CompletedProcess:
        env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        proc = subprocess.run([sys.executable, "-m", "snakemake", *args], cwd=self.root, env=env,
                              capture_output=True, text=True, timeout=timeout)
        if check and proc.returncode != 0:
            raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-6000:]}")
        return proc

    def planned_rules(self, *args) -> list[str]:
        """Rules that a dry-run with the local profile would run, in DAG order (without the target rules).

        `args` (targets, --configfile ...) go first: `--quiet` takes every word after it."""
        return self.dry_run(*args)[0]

    def dry_run(self, *args) -> tuple[list[str], str]:
        """planned_rules, and what the dry-run printed (its warnings: a frozen version's line)."""
        proc = self.snakemake(*args, "-n", "--profile", "profiles/local", "--quiet", "rules")
        return self._rules_of(proc.stdout), proc.stdout + proc.stderr

    @staticmethod
    def _rules_of(out: str) -> list[str]:
        if "Nothing to be done" in out:
            return []
        table = out.split("Job stats:", 1)[1].split("total", 1)[0]
        rules = []
        for line in table.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1].isdigit() and parts[0] not in TARGET_RULES:
                rules.append(parts[0])
        return rules
