"""MANIFEST.json, SHA256SUMS and the release ledger of the Doubting MS MARCO package.

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
- Release ledger: a JSON file outside Snakemake's outputs (Snakemake deletes outputs before a
  rerun) recording, per version, the sha256 of the package's SHA256SUMS. Building a version again
  with different content is refused.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

from ..atomic import remove_leftovers, write_json_atomic
from ..json_files import read_json
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


class ReleaseFrozenError(RuntimeError):
    pass


def content_hash(sha256sums_text: str) -> str:
    return hashlib.sha256(sha256sums_text.encode("utf-8")).hexdigest()


def read_ledger(path) -> dict:
    path = Path(path)
    if not path.exists():
        return {"releases": {}}
    return read_json(path)


def check_ledger(path, version: str, digest: str) -> bool:
    """True when `version` is new, False when it is recorded with this same content; raise otherwise."""
    recorded = read_ledger(path)["releases"].get(version)
    if recorded is None:
        return True
    if recorded["sha256sums_sha256"] != digest:
        raise ReleaseFrozenError(
            f"release {version} was already built with different content (release ledger {path}: sha256 of "
            f"SHA256SUMS {recorded['sha256sums_sha256']}, this build {digest}). A release version is frozen: bump "
            "doubting.version in the config to build new content under a new version.")
    return False


def record_ledger(path, version: str, digest: str, package_dir: str, config: dict | None = None,
                  code: dict | None = None) -> None:
    """Record `version` with its content hash, `config` (MANIFEST.json's config, planned_version_conflict) and
    `code` (MANIFEST.json's record of the code, irdata/doubting/release_code.py planned_code_differences)."""
    remove_leftovers(path)  # the temporary file of a publish killed while it wrote the ledger
    ledger = read_ledger(path)
    ledger["releases"][version] = {"sha256sums_sha256": digest, "package": str(package_dir),
                                   **({"config": config} if config is not None else {}),
                                   **({"code": code} if code is not None else {})}
    write_json_atomic(path, ledger)


def _differences(recorded, current, path=()) -> list[tuple[str, object, object]]:
    """(key path, recorded value, current value) of every leaf where two configs differ."""
    if isinstance(recorded, dict) and isinstance(current, dict):
        return [d for key in sorted(set(recorded) | set(current), key=str)
                for d in _differences(recorded.get(key), current.get(key), (*path, str(key)))]
    return [] if recorded == current else [(".".join(path), recorded, current)]


def planned_version_differences(path, version: str, config: dict) -> list[tuple[str, object, object]]:
    """(key path, recorded value, current value) of each config key in which building `config` as `version`
    differs from the config the release ledger at `path` records for it; empty when it records none."""
    recorded = read_ledger(path)["releases"].get(version, {}).get("config")
    return [] if recorded is None else _differences(recorded, config)


def planned_version_conflict(path, version: str, config: dict, shown: int = 3) -> str | None:
    """At planning, before any stage runs: why building `config` (MANIFEST.json's config, config_used) as
    `version` would be refused, or None. MANIFEST.json records that config, so a version recorded with
    another one can only be built with other content. What planning cannot know (the raw inputs' bytes, the
    code, the LLM's answers) stays with stage_release's check of the content hash (check_ledger); so does a
    version recorded before the ledger kept configs."""
    recorded = read_ledger(path)["releases"].get(version, {}).get("config")
    if recorded is None:
        return None
    diffs = _differences(recorded, config)
    if not diffs:
        return None
    def short(value) -> str:
        text = json.dumps(value, sort_keys=True)
        return text if len(text) <= 40 else text[:37] + "..."

    listed = "; ".join(f"{key}: {short(old)} then, {short(new)} now" for key, old, new in diffs[:shown])
    more = f" and {len(diffs) - shown} more" if len(diffs) > shown else ""
    return (f"doubting.version {version} is frozen: the release ledger {path} records it built with another config "
            f"({listed}{more}).\nSet doubting.version to a new version to build this config (or restore the "
            "recorded one).")
