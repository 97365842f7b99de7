"""The release gate: every LLM job's failures, summed by stage, split and kind, against the configured limits.

It runs after the last LLM job and before the release is staged. Each split of each stage (agent
episodes, graded pairs, answered queries, WOOD proposals, audit pairs) is held to its stage's limit,
the fraction of its units that failed: a split is never averaged away by a larger one. Over a limit
the build stops here, naming the stage and split, the counts, the commonest kinds and what to check;
nothing is staged, published or frozen. `accept_llm_failures` publishes anyway, with every failure
counted in MANIFEST.json and the card. failures.json is what MANIFEST.json's `failures` holds, with
the grade constraint paths (`grade_paths`) of every split's labels. Its
`tokens` are the LLM tokens each stage's jobs spent (collect_tokens), its `agent` what the search agent did
per split (collect_agent: the card's account of the searches comes from it). The 44b LLM arm's grades are held
to the grade limit by the same check (check_limits, called by irdata/eval44b/package.py).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..atomic import write_json_atomic
from ..errors import InputError, StopError
from ..shard_files import rule_splits
from ..token_counts import TOKEN_FIELDS, add_tokens

# the LLM rules, in pipeline order; each is the config key of its limit (annotation.failure_limits)
STAGES = ("agent_search", "grade", "generate_answer", "wood", "audit_labels")
# the audit grades human-judged pairs of neither split: its one job is its own split
AUDIT_SPLIT = "audit"
# what an agent_search job counts of its episodes (irdata/annotate/agent.py), summed per split by collect_agent
AGENT_COUNTS = ("queries", "with_proposals", "proposals", "searches", "reformulations", "example_copies")


class ReleaseGateError(StopError, RuntimeError):
    """Too many LLM failures to publish: the message names each split over its limit and what to check."""


def stage_splits(stage: str) -> list[str]:
    return [AUDIT_SPLIT] if stage == "audit_labels" else rule_splits(stage)


def input_name(stage: str, split: str) -> str:
    """The release_gate rule's named input holding the stats files of one stage's split."""
    return f"{stage}__{split}"


@dataclass(frozen=True)
class JobStats:
    """What the gate reads of one LLM job's stats file."""
    path: str
    failures: dict
    grade_paths: dict | None
    tokens: dict  # {op: TOKEN_FIELDS}
    agent: dict  # AGENT_COUNTS of an agent_search job, else empty


def read_job_stats(path) -> JobStats:
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        failures, grade_paths = record["failures"], record.get("grade_paths")
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(path, f"not a stats file of an LLM job ({exc}); rerun the job that writes it") from exc
    try:
        tokens = record["llm"]["tokens"]
    except (KeyError, TypeError) as exc:
        raise InputError(path, f"not a stats file of an LLM job with token counts (field llm.tokens: {exc}); "
                               "rerun the job that writes it", field="llm.tokens") from exc
    agent = {key: record[key] for key in AGENT_COUNTS if key in record} if record.get("stage") == "agent_search" else {}
    return JobStats(str(path), failures, grade_paths, tokens, agent)


def read_stats(stats_files: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], list[JobStats]]:
    """Each job's stats file, read once, keyed by (stage, split)."""
    return {key: [read_job_stats(p) for p in paths] for key, paths in stats_files.items()}


def sum_jobs(jobs: list[JobStats]) -> dict:
    """{units, jobs, total, failed, retryable, fraction, by_kind, jobs_with_failures[, grade_paths]} of some jobs."""
    total = failed = retryable = 0
    by_kind: Counter = Counter()
    paths_used: Counter = Counter()
    units, failing_jobs, has_paths = None, [], False
    for job in jobs:
        f = job.failures
        units = f["units"]
        total, failed, retryable = total + f["total"], failed + f["failed"], retryable + f["retryable"]
        by_kind.update(f["by_kind"])
        if job.grade_paths is not None:
            has_paths = True
            paths_used.update(job.grade_paths)
        if f["failed"]:
            failing_jobs.append(job.path)
    out = {"units": units, "jobs": len(jobs), "total": total, "failed": failed, "retryable": retryable,
           "fraction": failed / total if total else 0.0, "by_kind": dict(sorted(by_kind.items())),
           "jobs_with_failures": sorted(failing_jobs)}
    if has_paths:
        out["grade_paths"] = dict(sorted(paths_used.items()))
    return out


def collect_failures(stats: dict[tuple[str, str], list[JobStats]]) -> dict:
    """{stage: {the sums over its jobs, splits: {split: the sums over that split's jobs}}} over the jobs'
    stats, keyed by (stage, split); a stage without jobs (no audit configured) is left out."""
    out = {}
    for stage in STAGES:
        splits = {split: stats.get((stage, split), []) for split in stage_splits(stage)}
        if not any(splits.values()):
            continue
        record = sum_jobs([job for jobs in splits.values() for job in jobs])
        record.pop("grade_paths", None)  # kept per split only: a path count is only meaningful within one
        record["splits"] = {split: sum_jobs(jobs) for split, jobs in splits.items() if jobs}
        out[stage] = record
    return out


def _hints(kinds: set[str], journal_dir: str) -> list[str]:
    """What to check for the failure kinds over the limits."""
    hints = []
    if "protocol" in kinds:
        hints.append(
            "protocol (agent_search): the model never made a valid tool call before the episode's "
            "annotation.agent.<split>.max_protocol_errors ran out. Check the server's tool parser (vLLM: "
            "--enable-auto-tool-choice --tool-call-parser <the parser of the model's chat format, e.g. hermes for "
            "Qwen>) and llm.tool_protocol (native needs that parser; text asks for JSON actions in the reply and "
            "works on any server; changing it reruns agent_search and what follows). A plain rerun does not retry "
            "these episodes: their replies are journaled and would be replayed. After fixing the server with "
            f"llm.tool_protocol unchanged, delete the agent_search journals ({journal_dir}/agent_search-*.jsonl) "
            "and add -R agent_search to the command.")
    if "unparseable" in kinds:
        hints.append("unparseable: replies that are not a grade (the logs quote them): check the model and the "
                     "grading prompt; a plain rerun replays them from the journal.")
    if "non_finite" in kinds:
        hints.append("non_finite: the server returned log-probabilities whose mean is not finite: check the "
                     "server's prompt log-probabilities (llm.loglikelihood_* settings, the echo path).")
    if "misaligned" in kinds:
        hints.append("misaligned: no server's prompt log-probabilities could be aligned with the prompt (the wood "
                     "log names each server and the values): set llm.loglikelihood_bos: always (and "
                     "llm.loglikelihood_bos_text if the server adds no BOS itself), or use a server that aligns.")
    if "unencodable" in kinds:
        hints.append("unencodable: replies holding a lone surrogate, which no file can store: check the server's "
                     "detokenizer; a plain rerun does not retry them (not journaled: -R <rule> asks them again).")
    if kinds - {"protocol", "unparseable", "non_finite", "misaligned", "unencodable"}:
        hints.append("http_*, timeout, connection and other transport kinds: check the servers and llm.base_urls; "
                     "a plain rerun of the same command repeats only the failed calls (their journals answer the "
                     "rest).")
    return hints


def collect_tokens(stats: dict[tuple[str, str], list[JobStats]]) -> dict:
    """{stage: {TOKEN_FIELDS summed over the stage's jobs, by_op: {op: TOKEN_FIELDS}}}: the tokens the
    calls of each job's last run spent (journal hits spend none; cached: as the servers reported)."""
    out = {}
    for stage in STAGES:
        total, by_op = dict.fromkeys(TOKEN_FIELDS, 0), {}
        for job in (job for (name, _), jobs in sorted(stats.items()) if name == stage for job in jobs):
            for op, counts in job.tokens.items():
                add_tokens(total, counts)
                add_tokens(by_op.setdefault(op, dict.fromkeys(TOKEN_FIELDS, 0)), counts)
        out[stage] = {**total, "by_op": dict(sorted(by_op.items()))}
    return out


def collect_agent(stats: dict[tuple[str, str], list[JobStats]]) -> dict:
    """{split: AGENT_COUNTS summed over the split's agent_search jobs}: what the search agent did, as counted
    (a search that copied the prompt's example query is an example copy, not a reformulation)."""
    return {split: {key: sum(job.agent.get(key, 0) for job in jobs) for key in AGENT_COUNTS}
            for (stage, split), jobs in sorted(stats.items()) if stage == "agent_search" and jobs}


def over_limit(failures: dict, limits: dict) -> list[str]:
    """One line per split of a stage whose failed fraction exceeds the stage's limit."""
    lines = []
    for stage, record in failures.items():
        for split, f in record["splits"].items():
            if f["fraction"] <= limits[stage]:
                continue
            common = ", ".join(f"{kind} {n:,}" for kind, n in Counter(f["by_kind"]).most_common(3))
            lines.append(f"{stage} ({split}): {f['failed']:,} of {f['total']:,} {f['units']} failed "
                         f"({f['fraction']:.2%}), over the limit of {limits[stage]:.2%} "
                         f"(annotation.failure_limits.{stage}); commonest: {common}; {f['retryable']:,} retryable, "
                         f"in {len(f['jobs_with_failures'])} job(s), e.g. {f['jobs_with_failures'][0]}")
    return lines


def _kinds_over(failures: dict, limits: dict) -> set[str]:
    return {kind for stage, record in failures.items() for f in record["splits"].values()
            if f["fraction"] > limits[stage] for kind in f["by_kind"]}


def check_limits(failures: dict, limits: dict, accept: bool, journal_dir: str = "cache/llm_journal") -> list[str]:
    """The lines of `failures` (collect_failures' shape) over `limits`; over a limit without `accept` the
    ReleaseGateError that stops the build, naming each split, its counts, its commonest kinds and what to check."""
    problems = over_limit(failures, limits)
    if problems and not accept:
        hints = _hints(_kinds_over(failures, limits), journal_dir)
        raise ReleaseGateError(
            "release gate: too many LLM failures, nothing is published:\n  " + "\n  ".join(problems) + "\n"
            "What to check (the stage's logs under logs/ name each failure):\n  - " + "\n  - ".join(hints) + "\n"
            "Then run the same snakemake command again. To publish with these failures counted, add "
            "--config accept_llm_failures=true.")
    return problems


def run_gate(stats_files: dict[tuple[str, str], list[str]], settings: dict, out_path,
             journal_dir: str = "cache/llm_journal") -> dict:
    """The release_gate rule. `journal_dir` (llm.journal_dir) is only named in the message."""
    stats = read_stats(stats_files)
    failures = collect_failures(stats)
    problems = check_limits(failures, settings["limits"], settings["accept"], journal_dir)
    record = {"stages": failures, "limits": settings["limits"], "over_limit": problems,
              "accepted": bool(problems) and settings["accept"], "tokens": collect_tokens(stats),
              "agent": collect_agent(stats)}
    write_json_atomic(out_path, record)
    return record


def run_release_gate(*, failures, settings: dict, journal_dir: str, **stats_files) -> dict:
    """The release_gate rule: its inputs, the stats files of every LLM stage's split, are named
    input_name(stage, split); the record is written to `failures`."""
    names = {input_name(stage, split): (stage, split) for stage in STAGES for split in stage_splits(stage)}
    unknown = sorted(set(stats_files) - set(names))
    if unknown:
        raise TypeError(f"run_release_gate: unexpected keyword arguments {unknown}")
    return run_gate({key: list(stats_files.get(name, [])) for name, key in names.items()}, settings, failures,
                    journal_dir)
