"""The `llm:` config section: validated against schemas/llm.schema.yaml, defaults filled from it.

The schema is the single source of the defaults, so config files, docs and code cannot drift.
"""

from __future__ import annotations

import dataclasses
import json
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "schemas" / "llm.schema.yaml"

# Settings that change what a model answers: they go into every journal key and the manifest.
ANSWER_KEYS = ("backend", "model", "seed", "temperature", "tool_protocol", "loglikelihood_prefix",
               "loglikelihood_api", "extra_body")


@lru_cache(maxsize=1)
def schema() -> dict:
    import yaml

    with open(SCHEMA_PATH, encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@dataclasses.dataclass(frozen=True)
class LLMSettings:
    backend: str
    model: str
    gguf: str | None
    weights_cache_dir: str
    base_urls: tuple[str, ...]
    api_key_env: str | None
    transport: str
    max_in_flight: int
    timeout_s: float
    max_retries: int
    backoff_s: float
    backoff_max_s: float
    threads: int
    seed: int
    temperature: float
    max_tokens: int
    tool_protocol: str
    grade_retries: int
    loglikelihood_prefix: str
    loglikelihood_api: str
    extra_body: dict
    journal_dir: str
    stages: dict

    def for_stage(self, stage: str | None) -> "LLMSettings":
        """The settings a stage runs with: the base section with the stage's overrides applied."""
        if stage is None or stage not in self.stages:
            return self
        override = dict(self.stages[stage])
        if "base_urls" in override:
            override["base_urls"] = tuple(override["base_urls"])
        return dataclasses.replace(self, **override)

    def backend_key(self) -> str:
        """Identifies one backend instance: stages with equal effective settings share it."""
        d = dataclasses.asdict(self)
        d.pop("stages")
        return json.dumps(d, sort_keys=True, default=list)

    def answer_settings(self) -> dict:
        return {k: getattr(self, k) for k in ANSWER_KEYS}


def load_settings(section: dict | None) -> LLMSettings:
    """Validate an `llm:` config section (None or {} means all defaults) and fill the defaults.

    Raises ValueError naming the offending key when the section does not match the schema.
    """
    import jsonschema

    section = dict(section or {})
    sch = schema()
    errors = sorted(jsonschema.Draft202012Validator(sch).iter_errors(section), key=lambda e: list(e.path))
    if errors:
        lines = [f"llm.{'.'.join(map(str, e.path)) or '<section>'}: {e.message}" for e in errors]
        raise ValueError(
            "invalid `llm:` config section (see schemas/llm.schema.yaml):\n  " + "\n  ".join(lines)
        )
    values: dict[str, Any] = {}
    for key, spec in sch["properties"].items():
        values[key] = section.get(key, json.loads(json.dumps(spec.get("default"))))
    values["base_urls"] = tuple(values["base_urls"])
    settings = LLMSettings(**values)
    for stage in [None, *settings.stages]:
        eff = settings.for_stage(stage)
        if eff.backend == "openai" and not eff.base_urls:
            where = f"llm.stages.{stage}" if stage else "llm"
            raise ValueError(f"{where}: backend `openai` needs `base_urls` (e.g. [http://127.0.0.1:8000/v1])")
    return settings
