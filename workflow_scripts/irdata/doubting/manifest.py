"""MANIFEST.json and SHA256SUMS of the Doubting MS MARCO package.

- MANIFEST.json: version, row counts of every config and split, the counts of the trec/ qrels and of
  examples/bm25_dev.trec (`baseline_run`), every count of the card, sha256 of every input (inputs.json),
  the identity of the code (`code`: irdata/doubting/release_code.py), the LLM model and server identity,
  the config used, the grading failures, the LLM failures per stage and split (`failures`, with the grade
  constraint paths of each split), the LLM tokens per stage, what the search agent did per split (`agent`: its
  searches, reformulations and copies of the prompt's example query) and the downstream comparison (`downstream`:
  irdata/downstream/compare.py; null when not run). Sorted keys, no timestamps, no absolute paths:
  identical inputs give identical bytes.
- SHA256SUMS: GNU `sha256sum` format (`<hex>  <relative path>`), sorted by path, every file of the
  package but itself; `sha256sum -c --strict SHA256SUMS` passes in the package folder.
- Release ledger: irdata/ledger.py (both releases); planned_code_differences compares the code it records.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from ..provenance import sha256sums_text

MANIFEST = "MANIFEST.json"
SHA256SUMS = "SHA256SUMS"
# failures listed pair by pair in MANIFEST.json up to this many (all are counted)
MAX_LISTED_FAILURES = 10_000


def grading_failures(stats: dict) -> dict:
    failures = [f for split in ("train", "dev") for f in stats["splits"][split].get("grading_failures", [])]
    counts = Counter((f["split"], f["origin"]) for f in failures)
    reasons = Counter(f["failure"] for f in failures)
    kinds = Counter(f["kind"] for f in failures)
    listed = sorted(failures, key=lambda f: (f["split"], f["origin"], f["query_id"], f["passage_id"]))
    return {
        "total": len(failures),
        "by_split_and_origin": {f"{s}/{o}": counts.get((s, o), 0)
                                for s in ("train", "dev") for o in ("agent", "official")},
        "by_reason": dict(sorted(reasons.items())),
        "by_kind": dict(sorted(kinds.items())),
        "pairs": listed[:MAX_LISTED_FAILURES],
        "pairs_truncated": len(listed) > MAX_LISTED_FAILURES,
    }


def build_manifest(stats: dict, version: str, repo_id: str, inputs: dict, identity: dict, config: dict,
                   code: dict[str, str], rules: str, failures: dict | None = None, audit: dict | None = None,
                   baseline_run: dict | None = None, downstream: dict | None = None,
                   human_audit: dict | None = None) -> dict:
    rows: dict[str, dict[str, int]] = {}
    for key, count in stats["rows"].items():
        config_name, split = key.split("/")
        rows.setdefault(config_name, {})[split] = count
    counts = {split: {k: v for k, v in s.items() if k != "grading_failures"} for split, s in stats["splits"].items()}
    return {
        "name": repo_id,
        "version": version,
        "rows": rows,
        "ids": stats["ids"],
        "trec": stats["trec"],
        "baseline_run": baseline_run,
        "counts": counts,
        "selection_rules": rules,
        "inputs": inputs,
        "code": code,
        "llm": identity,
        "config": config,
        "grading_failures": grading_failures(stats),
        "failures": llm_failures(failures),
        "tokens": llm_tokens(failures),
        "agent": failures.get("agent") if failures else None,
        "audit": audit,
        "downstream": downstream,
        "human_audit": human_audit,
    }


_COUNTS = ("units", "total", "failed", "retryable", "by_kind")


def llm_failures(gate: dict | None) -> dict | None:
    """Per LLM stage and per split: its units, how many failed and by which kind, and for grades the
    constraint path of the labels (`grade_paths`): the release gate's counts."""
    if gate is None:
        return None
    return {"stages": {stage: {**{k: f[k] for k in _COUNTS},
                               "splits": {split: {k: s[k] for k in (*_COUNTS, "grade_paths") if k in s}
                                          for split, s in f["splits"].items()}}
                       for stage, f in gate["stages"].items()},
            "limits": gate["limits"], "accepted_over_limit": gate["accepted"]}


# The release's token counts: those of the answers. Cached prompt tokens stay in failures.json:
# they depend on which server answered what (routing, cache size), and server settings are no
# part of a release.
MANIFEST_TOKEN_FIELDS = ("calls", "prompt_tokens", "completion_tokens", "calls_without_usage")


def llm_tokens(gate: dict | None) -> dict | None:
    """Per LLM stage: calls, prompt and completion tokens of the jobs that made the release."""
    if gate is None or "tokens" not in gate:
        return None
    return {stage: {k: t[k] for k in MANIFEST_TOKEN_FIELDS} for stage, t in gate["tokens"].items()}


def write_sha256sums(folder) -> str:
    """Write SHA256SUMS for every file under `folder` but itself; return its text."""
    folder = Path(folder)
    # sorted by path in code point order (= byte order of UTF-8, as `LC_ALL=C sort`)
    rels = sorted(rel for p in folder.rglob("*") if p.is_file()
                  and (rel := p.relative_to(folder).as_posix()) != SHA256SUMS)
    text = sha256sums_text(folder, rels)
    (folder / SHA256SUMS).write_text(text, encoding="utf-8", newline="\n")
    return text


