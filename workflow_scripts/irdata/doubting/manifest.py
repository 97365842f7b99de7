"""MANIFEST.json, SHA256SUMS and the release ledger of the Doubting MS MARCO package.

- MANIFEST.json: version, row counts of every config and split, the counts of the trec/ qrels and of
  examples/bm25_dev.trec (`baseline_run`), every count of the card, sha256 of every input (inputs.json)
  and of every code, prompt and env file, the LLM model and server identity, the config used, the grading
  failures, the LLM failures per stage and split (`failures`, with the grade constraint paths of each
  split), the LLM tokens per stage, what the search agent did per split (`agent`: its searches,
  reformulations and copies of the prompt's example query) and the downstream comparison (`downstream`:
  irdata/downstream/compare.py; null when not run). Sorted keys, no timestamps, no absolute paths:
  identical inputs give identical bytes.
- SHA256SUMS: GNU `sha256sum` format (`<hex>  <relative path>`), sorted by path, every file of the
  package but itself; `sha256sum -c --strict SHA256SUMS` passes in the package folder.
- Release ledger: irdata/ledger.py (both releases); planned_code_differences compares the code it records.
"""

from __future__ import annotations

import fnmatch
import glob
from collections import Counter
from pathlib import Path

from ..ledger import read_ledger
from ..provenance import script_files, sha256_file, sha256sums_text

MANIFEST = "MANIFEST.json"
SHA256SUMS = "SHA256SUMS"
# failures listed pair by pair in MANIFEST.json up to this many (all are counted)
MAX_LISTED_FAILURES = 10_000

# the rule scripts of the Doubting MS MARCO build: their code, and the modules they import, is the
# release's code; the 44b scripts and modules are not (editing them changes nothing here)
DOUBTING_SCRIPTS = ["validate_msmarco_inputs", "validate_beir_inputs", "dedup_train_queries", "shard_queries",
                    "index_bm25", "encode_passages", "index_dense", "agent_search", "grade", "generate_answer", "wood",
                    "llm_identity", "audit_labels", "audit_runs", "audit_ranking", "human_audit_sheet",
                    "human_audit_results", "bm25_dev_run", "assemble", "release_gate", "stage_release", "package",
                    "downstream_training_set", "downstream_train", "downstream_encode", "downstream_evaluate",
                    "downstream_compare", "downstream_beir_inputs"]
# the other files of the build, relative to the workflow folder (the config itself is recorded
# resolved, in MANIFEST.json's `config`; prompts are given by the stages that use them)
CODE_PATTERNS = ["Snakefile", "rules/common.smk", "rules/queries.smk", "rules/retrieval.smk", "rules/annotate.smk",
                 "rules/package.smk", "rules/downstream.smk", "workflow_scripts/irdata/doubting/examples/*.py",
                 "envs/core.yaml", "envs/llm.yaml", "envs/retrieval.yaml", "schemas/*.yaml", "requirements*.txt"]
CODE_EXCLUDE = ["schemas/eval44b.schema.yaml"]


def code_files(root, prompts=(), scripts=DOUBTING_SCRIPTS, patterns=CODE_PATTERNS, exclude=CODE_EXCLUDE) -> list[str]:
    """Sorted relative paths of the release's code: the scripts with every module they import and
    those modules' templates (irdata.provenance.script_files), the prompts, and the files matching
    `patterns` under `root`, minus `exclude`."""
    root = Path(root).resolve()
    found = {Path(p).relative_to(root).as_posix()
             for name in scripts for p in script_files(root / "workflow_scripts" / f"{name}.py")}
    found.update(Path(p).as_posix() for p in prompts)
    for pattern in patterns:
        for path in glob.glob(str(root / pattern), recursive=True):
            rel = Path(path).relative_to(root).as_posix()
            if Path(path).is_file() and not any(fnmatch.fnmatch(rel, e) for e in exclude):
                found.add(rel)
    return sorted(found)


def file_hashes(root, rel_paths) -> dict[str, str]:
    return {rel: sha256_file(Path(root) / rel) for rel in rel_paths}


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


def planned_code_differences(path, version: str, root) -> list[str]:
    """The code, prompt, env and schema files (relative to the workflow folder `root`) whose bytes differ from
    those the release ledger at `path` records for `version` (a file gone counts): building `version` now would
    give a MANIFEST.json of other content. Empty when the ledger records no code for it."""
    recorded = read_ledger(path)["releases"].get(version, {}).get("code") or {}
    return [rel for rel, digest in sorted(recorded.items())
            if not (Path(root) / rel).is_file() or sha256_file(Path(root) / rel) != digest]
