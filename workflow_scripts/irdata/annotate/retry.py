"""An LLM job's retry state: the `retry` param that reruns a job whose last run left retryable failures.

Planning reads it for every LLM job (irdata/stage_registry.py), so this module imports nothing heavy.
"""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_json_atomic
from ..json_files import read_json


def retry_generation(path) -> int:
    """The `retry` param of an LLM job whose retry state is `path` (see the module doc)."""
    path = Path(path)
    if not path.exists():
        return 0
    state = read_json(path)
    return state["generation"] + (1 if state["retryable"] else 0)


def record_retry_state(path, generation: int, retryable: int, by_kind: dict) -> None:
    """After a job: the generation it ran as and how many of its failures (`by_kind`, counted by kind) a rerun would
    retry (irdata.annotate.common.Failures)."""
    path = Path(path)
    if generation == 0 and not retryable:
        path.unlink(missing_ok=True)  # the common case leaves no file behind
        return
    write_json_atomic(path, {"generation": generation, "retryable": retryable, "by_kind": dict(by_kind)})
