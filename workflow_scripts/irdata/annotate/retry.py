"""An LLM job's retry state: the `retry` param that reruns a job whose last run left retryable failures.

Planning reads it for every LLM job (irdata/stage_registry.py), so this module imports nothing heavy.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import write_json_atomic
from ..json_files import read_json

if TYPE_CHECKING:
    from .common import Failures


def retry_generation(path) -> int:
    """The `retry` param of an LLM job whose retry state is `path` (see the module doc)."""
    path = Path(path)
    if not path.exists():
        return 0
    state = read_json(path)
    return state["generation"] + (1 if state["retryable"] else 0)


def record_retry_state(path, generation: int, failures: Failures) -> None:
    """After a job: the generation it ran as and whether it left failures that a rerun would retry."""
    path = Path(path)
    if generation == 0 and not failures.retryable:
        path.unlink(missing_ok=True)  # the common case leaves no file behind
        return
    write_json_atomic(path, {"generation": generation, "retryable": failures.retryable,
                             "by_kind": dict(failures.by_kind)})
