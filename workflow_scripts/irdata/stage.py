"""What a stage reads, declared once in the stage's own module: its script, config slice and prompts.

A rule passes `settings(config, **wildcards)` as its param `settings` and the script reads only
that param (with its inputs and outputs), so Snakemake's params trigger reruns a job exactly when
something it reads changes. Its `code` param hashes the script, the modules the script imports and
the prompt files (irdata.provenance.code_hash). Settings that change no output (LLM servers,
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
    script: str  # relative to the workflow folder
    settings: Callable[..., dict]  # (config, **wildcards) -> everything the script reads
    prompts: Callable[..., dict[str, str]] = no_prompts  # (config, **wildcards) -> {name: template path}


def canonical(value):
    """`value` with every dict's keys sorted: Snakemake compares params by repr, so key order must not matter."""
    return json.loads(json.dumps(value, sort_keys=True, default=list))
