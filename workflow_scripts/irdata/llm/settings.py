"""The `llm:` config section: validated against schemas/llm.schema.yaml, defaults filled from it.

The schema is the single source of the defaults, so config files, docs and code cannot drift.
Its keys fall in two groups. Answer settings change what the model answers: they go into every
journal key, the manifest and a rule's params, so changing one reruns what it changes.
Connection settings change no output (where the servers are, how fast and how robustly calls
travel): a rule reads them from config and does not hash them, so pointing a finished build at
other servers reruns nothing. The usual wiring:

    params: llm=LLM.for_stage("grade").answer_settings()              # in the rule (hashed)
    settings_from_parts(params.llm, connection_settings(config["llm"]))  # in the job
"""

from __future__ import annotations

import dataclasses
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

SCHEMA_PATH = Path(__file__).resolve().parents[3] / "schemas" / "llm.schema.yaml"

ANSWER_SETTINGS = ("backend", "model", "gguf", "seed", "temperature", "max_tokens", "tool_protocol",
                   "tool_constraint", "grade_retries", "grade_constraint", "grade_max_tokens", "loglikelihood_api",
                   "loglikelihood_bos", "loglikelihood_bos_text", "extra_body")
CONNECTION_SETTINGS = ("base_urls", "transport", "api_key_env", "max_in_flight", "timeout_s", "max_retries",
                       "backoff_s", "backoff_max_s", "breaker_failures", "breaker_cooldown_s", "outage_limit_s",
                       "routing", "threads", "weights_cache_dir", "journal_dir")

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
    breaker_failures: int
    breaker_cooldown_s: float
    outage_limit_s: float
    routing: str
    threads: int
    seed: int
    temperature: float
    max_tokens: int
    tool_protocol: str
    tool_constraint: str
    grade_retries: int
    grade_constraint: str
    grade_max_tokens: int
    loglikelihood_api: str
    loglikelihood_bos: str
    loglikelihood_bos_text: str | None
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
        """The settings that change answers: journal keys, identity and rule params."""
        return {k: getattr(self, k) for k in ANSWER_SETTINGS}


def connection_settings(llm_section: dict | None) -> dict:
    """The connection keys of a raw `llm:` section, stage overrides included (reduced to their
    connection keys): what a job reads from config next to the answer settings in its params."""
    section = dict(llm_section or {})
    out = {k: section[k] for k in CONNECTION_SETTINGS if k in section}
    stages = {}
    for name, override in (section.get("stages") or {}).items():
        conn = {k: v for k, v in (override or {}).items() if k in CONNECTION_SETTINGS}
        if conn:
            stages[name] = conn
    if stages:
        out["stages"] = stages
    return out


def settings_from_parts(answer: dict, connection: dict | None) -> LLMSettings:
    """LLMSettings from a stage's answer settings (a rule param, `answer_settings()` of the
    stage) and the connection settings (`connection_settings(config["llm"])`).

    The answer part is already the stage's: stage overrides in `connection` still apply when
    the client is called with that stage."""
    connection = dict(connection or {})
    wrong = sorted(set(answer) - set(ANSWER_SETTINGS))
    if wrong:
        raise ValueError(f"llm answer settings: {wrong} are not answer settings (see irdata.llm.settings)")
    wrong = sorted(set(connection) - set(CONNECTION_SETTINGS) - {"stages"})
    for name, override in (connection.get("stages") or {}).items():
        wrong += [f"stages.{name}.{k}" for k in override if k not in CONNECTION_SETTINGS]
    if wrong:
        raise ValueError(f"llm connection settings: {wrong} are not connection settings (see irdata.llm.settings)")
    return load_settings({**connection, **answer})


def _shown_url(url: str) -> str:
    """A base URL as messages may quote it: without user, password, query or fragment."""
    parts = urlsplit(url)
    if not parts.netloc:  # not a URL the schema takes (no //): whatever precedes an @ may be a key
        return url.rpartition("@")[2]
    return parts._replace(netloc=parts.netloc.rpartition("@")[2], query="", fragment="").geturl()


def _check_url_secrets(where: str, url) -> str | None:
    """A reason to refuse a base URL that carries credentials (user:password@, a query or fragment,
    where keys get pasted), never quoting them: a base URL is written into logs and error messages."""
    if not isinstance(url, str):
        return None  # the schema reports the type
    parts = urlsplit(url)
    if "@" not in (parts.netloc or url) and not parts.query and not parts.fragment:
        return None
    return (f"{where}: {_shown_url(url)!r} carries credentials (a user:password@ part, a query or a fragment, not "
            "shown): a base URL is written into logs and messages. Give the server's key in an environment "
            "variable named by llm.api_key_env (sent as `Authorization: Bearer`), and treat it as leaked if this "
            "config was shared")


def _check_base_url(where: str, url: str) -> str | None:
    parts = urlsplit(url)
    if parts.path.rstrip("/").endswith("/v1"):
        return None
    shown = _shown_url(url)
    fix = f" (e.g. {shown.rstrip('/')}/v1)" if parts.path in ("", "/") else ""
    return (f"{where}: {shown!r} has no path ending in /v1{fix}: OpenAI-compatible servers (vLLM, "
            "llama-cpp-python) serve the API under /v1, so every call would fail with HTTP 404")


def _check_key_name(where: str, name) -> str | None:
    """A reason to refuse an api_key_env value, never quoting the value (it may be a key)."""
    if not isinstance(name, str):
        return None  # the schema reports the type
    looks_like_key = (
        name.lower().startswith(("sk-", "sk_", "hf_", "gsk_", "xai-"))
        or (len(name) >= 24 and "_" not in name and re.search(r"\d", name) is not None)
    )
    if _ENV_NAME.fullmatch(name) and not looks_like_key:
        return None
    return (f"{where}: expects the NAME of an environment variable (letters, digits and _, e.g. VLLM_API_KEY), "
            f"and the value given ({len(name)} characters, not shown) looks like a key itself. Put the key in "
            "an environment variable, name that variable here, and treat the key as leaked if this config "
            "was shared")


def load_settings(section: dict | None) -> LLMSettings:
    """Validate an `llm:` config section (None or {} means all defaults) and fill the defaults.

    Raises ValueError naming the offending key when the section does not match the schema.
    """
    import jsonschema

    section = dict(section or {})
    stages = section.get("stages") if isinstance(section.get("stages"), dict) else {}
    # Checked before the schema, whose messages would quote the value.
    for where, sect in [("llm", section), *((f"llm.stages.{k}", v) for k, v in stages.items())]:
        if not isinstance(sect, dict):
            continue
        if "api_key_env" in sect:
            problem = _check_key_name(f"{where}.api_key_env", sect["api_key_env"])
            if problem:
                raise ValueError(problem)
        urls = sect.get("base_urls")
        for i, url in enumerate(urls if isinstance(urls, list) else ()):
            problem = _check_url_secrets(f"{where}.base_urls[{i}]", url)
            if problem:
                raise ValueError(problem)
    sch = schema()
    errors = sorted(jsonschema.Draft202012Validator(sch).iter_errors(section), key=lambda e: list(e.path))
    if errors:
        lines = [f"llm.{'.'.join(map(str, e.path)) or '<section>'}: {e.message}" for e in errors]
        raise ValueError(
            "invalid `llm:` config section (see schemas/llm.schema.yaml):\n  " + "\n  ".join(lines)
        )
    problems = []
    for where, sect in [("llm", section), *((f"llm.stages.{k}", v) for k, v in stages.items())]:
        for i, url in enumerate(sect.get("base_urls") or ()):
            problem = _check_base_url(f"{where}.base_urls[{i}]", url)
            if problem:
                problems.append(problem)
    if problems:
        raise ValueError("\n".join(problems))
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
