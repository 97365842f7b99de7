"""The release gate: every LLM job's failures, summed by stage and kind, against the configured limits.

It runs after the last LLM job and before the release is staged. Over a stage's limit (the fraction
of its units that failed: agent episodes, graded pairs, answered queries, WOOD proposals) the build
stops here, naming the stage, the counts, the commonest kinds and what to do; nothing is staged,
published or frozen. `accept_llm_failures` publishes anyway, with every failure counted in
MANIFEST.json and the card. failures.json is what MANIFEST.json's `failures` holds, and its
`tokens` the LLM tokens each stage's jobs spent (collect_tokens).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from ..atomic import write_json_atomic
from ..errors import InputError
from ..llm.results import TOKEN_FIELDS, add_tokens
from ..stage import Stage, canonical

# the LLM rules, in pipeline order, and the config key of each limit
STAGES = ("agent_search", "grade", "generate_answer", "wood")

STAGE = Stage(
    name="release_gate",
    script="workflow_scripts/release_gate.py",
    settings=lambda config, **_: canonical({"limits": config["annotation"]["failure_limits"],
                                            "accept": config["accept_llm_failures"]}),
)


class ReleaseGateError(RuntimeError):
    pass


def _read_stats(path) -> dict:
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
        return record["failures"]
    except (OSError, ValueError, KeyError) as exc:
        raise InputError(path, f"not a stats file of an LLM job ({exc}); rerun the job that writes it") from exc


def collect_failures(stats_files: dict[str, list[str]]) -> dict:
    """{stage: {units, jobs, total, failed, retryable, fraction, by_kind, jobs_with_failures}} over the jobs' stats."""
    out = {}
    for stage in STAGES:
        total = failed = retryable = 0
        by_kind: Counter = Counter()
        units, failing_jobs = None, []
        for path in stats_files.get(stage, []):
            f = _read_stats(path)
            units = f["units"]
            total, failed, retryable = total + f["total"], failed + f["failed"], retryable + f["retryable"]
            by_kind.update(f["by_kind"])
            if f["failed"]:
                failing_jobs.append(str(path))
        out[stage] = {"units": units, "jobs": len(stats_files.get(stage, [])), "total": total, "failed": failed,
                      "retryable": retryable, "fraction": failed / total if total else 0.0,
                      "by_kind": dict(sorted(by_kind.items())), "jobs_with_failures": sorted(failing_jobs)}
    return out


def _read_tokens(path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))["llm"]["tokens"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise InputError(path, f"not a stats file of an LLM job with token counts (field llm.tokens: {exc}); "
                               "rerun the job that writes it", field="llm.tokens") from exc


def collect_tokens(stats_files: dict[str, list[str]]) -> dict:
    """{stage: {TOKEN_FIELDS summed over the stage's jobs, by_op: {op: TOKEN_FIELDS}}}: the tokens the
    calls of each job's last run spent (journal hits spend none; cached: as the servers reported)."""
    out = {}
    for stage in STAGES:
        total, by_op = dict.fromkeys(TOKEN_FIELDS, 0), {}
        for path in stats_files.get(stage, []):
            for op, counts in _read_tokens(path).items():
                add_tokens(total, counts)
                add_tokens(by_op.setdefault(op, dict.fromkeys(TOKEN_FIELDS, 0)), counts)
        out[stage] = {**total, "by_op": dict(sorted(by_op.items()))}
    return out


def over_limit(failures: dict, limits: dict) -> list[str]:
    """One line per stage whose failed fraction exceeds its limit."""
    lines = []
    for stage, f in failures.items():
        if f["fraction"] > limits[stage]:
            common = ", ".join(f"{kind} {n:,}" for kind, n in Counter(f["by_kind"]).most_common(3))
            lines.append(f"{stage}: {f['failed']:,} of {f['total']:,} {f['units']} failed ({f['fraction']:.2%}), over "
                         f"the limit of {limits[stage]:.2%} (annotation.failure_limits.{stage}); commonest: {common}; "
                         f"{f['retryable']:,} retryable, in {len(f['jobs_with_failures'])} job(s), e.g. "
                         f"{f['jobs_with_failures'][0]}")
    return lines


def run_gate(stats_files: dict[str, list[str]], settings: dict, out_path) -> dict:
    failures = collect_failures(stats_files)
    problems = over_limit(failures, settings["limits"])
    record = {"stages": failures, "limits": settings["limits"], "over_limit": problems,
              "accepted": bool(problems) and settings["accept"], "tokens": collect_tokens(stats_files)}
    if problems and not settings["accept"]:
        raise ReleaseGateError(
            "release gate: too many LLM failures, nothing is published:\n  " + "\n  ".join(problems) + "\n"
            "Fix the cause (the stage's logs under logs/ name each failure; for http_* and timeout kinds check the "
            "servers and llm.base_urls), then run the same snakemake command again: the jobs with retryable "
            "failures rerun and repeat only their failed calls (their journals answer the rest). To publish with "
            "these failures counted, add --config accept_llm_failures=true.")
    write_json_atomic(out_path, record)
    return record
