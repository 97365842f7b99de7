"""Pieces every LLM rule shares: its LLM settings, running it with a client, failure counts and stats.

Failures. Each stage counts its units (agent episodes, graded pairs, answered queries, WOOD
proposals) and the ones that failed, by kind (the LLM layer's failure class: `timeout`, `http_500`,
`unparseable`, ...). A failed call is never journaled as an answer, so running the job again retries
exactly the failed calls. To make a plain `snakemake` rerun do that, each LLM rule has a param
`retry` (irdata/annotate/retry.py): it stays the same while the job's last run left no retryable failure
and goes up by one when it left some, so Snakemake reruns that job (reason: params changed) and
nothing else. Kinds in NOT_RETRIED come from the model's own answer (a journaled reply that does not
parse) or from the request itself, and would fail the same way again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq

from ..atomic import write_json_atomic
from ..llm import LLMSettings, connection_settings, journal_path_for, load_settings, make_client, settings_from_parts
from ..prompts import take_escape_counts
from ..tsv import read_trec_qrels
from .retry import record_retry_state

log = logging.getLogger(__name__)

NOT_RETRIED = frozenset({"unparseable", "misaligned", "unsupported_model", "protocol", "empty_answer",
                         "non_finite", "unencodable", "http_400", "http_413", "http_422"})


@lru_cache(maxsize=64)
def _loaded(llm_config_json: str) -> LLMSettings:
    return load_settings(json.loads(llm_config_json))


def llm_params(llm_config: dict, stage: str) -> dict:
    """The LLM settings that change the answers of `stage` (irdata.llm ANSWER_SETTINGS, the stage's
    overrides applied): the `llm` part of a stage's settings."""
    return _loaded(json.dumps(llm_config, sort_keys=True)).for_stage(stage).answer_settings()


def job_llm_settings(answer: dict, llm_config: dict) -> LLMSettings:
    """The settings a job's client runs with: what changes answers from the job's params, the
    connection (servers, timeouts, concurrency) from the config, where changing it reruns nothing."""
    return settings_from_parts(answer, connection_settings(llm_config))


@dataclass(frozen=True)
class LLMJob:
    """How one LLM job calls the model: its settings, its journal, its retry state and generation."""

    settings: LLMSettings
    journal: Path
    retry_state: Path
    generation: int


def llm_job(snakemake) -> LLMJob:
    """The LLM job of a rule script. Its params carry what changes answers (`settings["llm"]`), the
    job name (`job`), its retry state path and generation (`retry_state`, `retry`). Only the
    connection settings and the journal folder come from the config: they change no output."""
    params, llm_config = snakemake.params, snakemake.config["llm"]
    settings = job_llm_settings(params.settings["llm"], llm_config)
    return LLMJob(settings, journal_path_for(settings, params.job), Path(params.retry_state), int(params.retry))


def read_parquet_frame(path) -> pd.DataFrame:
    return pq.read_table(path).to_pandas()


def official_positives(qrels_path) -> pd.DataFrame:
    qrels = read_trec_qrels(qrels_path).to_pandas()
    return qrels[qrels["relevance"] >= 1][["query_id", "passage_id"]]


def run_with_client(job: LLMJob | LLMSettings, fn):
    """Run `await fn(client)` with a fresh client of `job` (journaled) or of bare settings (not
    journaled); return (result, client) (the client is closed)."""
    settings, journal = (job.settings, job.journal) if isinstance(job, LLMJob) else (job, None)

    async def go():
        client = make_client(settings, journal_path=journal)
        try:
            return await fn(client), client
        finally:
            await client.aclose()

    return asyncio.run(go())


@dataclass
class Failures:
    """What one job counted: `total` units, the failed ones by kind."""

    units: str
    total: int = 0
    by_kind: Counter = field(default_factory=Counter)

    def add(self, kind: str | None) -> None:
        self.by_kind[kind or "unknown"] += 1

    @property
    def failed(self) -> int:
        return sum(self.by_kind.values())

    @property
    def retryable(self) -> int:
        return sum(n for kind, n in self.by_kind.items() if kind not in NOT_RETRIED)

    def as_dict(self) -> dict:
        return {"units": self.units, "total": self.total, "failed": self.failed, "retryable": self.retryable,
                "by_kind": dict(sorted(self.by_kind.items()))}


def finish_job(job: LLMJob, path, stage: str, client, failures: Failures, **summary) -> None:
    """The job's stats file (read by the release gate), its retry state and its log's closing line."""
    record = {"stage": stage, "failures": failures.as_dict(), "llm": client.stats.as_dict(),
              "prompt_escapes": take_escape_counts(), **summary}
    write_json_atomic(path, record)
    log.info("%s: %d %s, %d failed %s; llm calls %d, journal hits %d, retries %d", stage, failures.total,
             failures.units, failures.failed, dict(sorted(failures.by_kind.items())), client.stats.calls,
             client.stats.journal_hits, client.stats.retries)
    record_retry_state(job.retry_state, job.generation, failures.retryable, failures.by_kind)


def write_llm_identity(*, identity, settings: dict, llm_config: dict) -> dict:
    """The model and server identity of every LLM stage (MANIFEST.json's `llm`): the default
    settings, and each stage that overrides them, written to `identity` (`llm_config`: config["llm"])."""
    async def identity_of(client):
        return client.identity()

    value = {}
    for name, answer in settings["llm"].items():
        value[name], _ = run_with_client(job_llm_settings(answer, llm_config), identity_of)
    record = value.pop("default")
    if value:
        record["stages"] = value
    write_json_atomic(identity, record)
    return record
