"""What a stage reads, declared once in its family's stages module: its config slice, prompts and LLM job.

A rule passes `settings(config, **wildcards)` as its param `settings` and the script reads only
that param (with its inputs and outputs), so Snakemake's params trigger reruns a job exactly when
something it reads changes. Its `code` param is the code identity of the script, the modules the script imports and
the prompt files (irdata/code_identity.py); the script is the one the rule names (declared once, in
the rule), so the identity covers the file that runs. Settings that change no output (LLM servers,
timeouts, concurrency) are not part of any stage's settings.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass


def no_prompts(config: dict, **wildcards) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class Stage:
    name: str  # the rule
    settings: Callable[..., dict]  # (config, **wildcards) -> everything the script reads
    prompts: Callable[..., dict[str, str]] = no_prompts  # (config, **wildcards) -> {name: template path}
    # an LLM job's journal name (`job` param), a pattern of the rule's wildcards, e.g. "grade-{split}-{shard}"
    job: str | None = None
    # where an LLM job records whether its last run left retryable failures (`retry_state` param, a pattern of the
    # rule's wildcards from irdata/layout.py; its `retry` param is the generation read from it:
    # irdata/annotate/retry.py)
    retry_state: str | None = None


def canonical(value):
    """`value` with every dict's keys sorted: Snakemake compares params by repr, so key order must not matter."""
    return json.loads(json.dumps(value, sort_keys=True, default=list))
