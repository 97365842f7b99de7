"""The code of a release: which files it is (a ReleaseCode: the Doubting builds' DOUBTING_CODE, 44b Eval's in
irdata/eval44b/wiring.py), its manifest's `code` record of it, and what differs from the record the release ledger
keeps of a published version.

The record (release_code) holds what the code means (irdata/code_identity.py), so that a comment, a docstring, a
formatter or a module moved to another folder changes neither the release nor its frozen version:

    {"scheme": "irdata-code-identity-1",
     "modules": [the sorted identities of every module the release's scripts import: no path],
     "files": {path: identity of each other file: the prompts, Snakefile, rules, envs, schemas, requirements and the
               shipped examples}}

A checkout of the same code gives the same record wherever it is. Only the Snakefile's process imports this module
(the record reaches stage_release as a param): no rule script's code is its code.
"""

from __future__ import annotations

import fnmatch
import glob
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ..code_identity import SCHEME, closure_identities, file_identity
from ..ledger import read_ledger
from ..provenance import script_files, sha256_file

# the rule scripts of a Doubting build: their code, and the modules they import, is the release's code; the 44b
# scripts and modules are not (editing them changes nothing here). Every script that rules/queries.smk, annotate.smk,
# package.smk and downstream.smk name is here, and retrieval.smk's of a build's collection
# (tests/unit/test_release_scripts.py), but the input checks: a build's is its source's (doubting_code)
DOUBTING_SCRIPTS = ["check_acquisition_batches", "dedup_train_queries", "shard_queries",
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


@dataclass(frozen=True)
class ReleaseCode:
    """The files that are a release's code: the rule scripts (by name, under workflow_scripts/) whose modules it
    runs, and its other files (glob patterns relative to the workflow folder, minus `exclude`)."""

    scripts: tuple[str, ...]
    patterns: tuple[str, ...]
    exclude: tuple[str, ...] = ()

    def script_paths(self, root: Path) -> list[Path]:
        return [root / "workflow_scripts" / f"{name}.py" for name in self.scripts]


def doubting_code(input_check: str) -> ReleaseCode:
    """The code of a Doubting build whose inputs the rule `input_check` checks (its source's, irdata/sources/: another
    source's code is not its code)."""
    return ReleaseCode((input_check, *DOUBTING_SCRIPTS), tuple(CODE_PATTERNS), tuple(CODE_EXCLUDE))


# an MS MARCO-format build's, as the demo's
DOUBTING_CODE = doubting_code("validate_msmarco_inputs")


def other_files(root, prompts=(), code: ReleaseCode = DOUBTING_CODE) -> list[str]:
    """Sorted relative paths of the release's code files other than its modules: the prompts and the files matching
    its patterns under `root`, minus its exclusions."""
    root = Path(root).resolve()
    found = {Path(p).as_posix() for p in prompts}
    for pattern in code.patterns:
        for path in glob.glob(str(root / pattern), recursive=True):
            rel = Path(path).relative_to(root).as_posix()
            if Path(path).is_file() and not any(fnmatch.fnmatch(rel, e) for e in code.exclude):
                found.add(rel)
    return sorted(found)


def code_files(root, prompts=(), code: ReleaseCode = DOUBTING_CODE) -> list[str]:
    """Sorted relative paths of every file of the release's code: the scripts with every module they import and those
    modules' templates (irdata.provenance.script_files), and the other files (other_files)."""
    root = Path(root).resolve()
    found = {p.relative_to(root).as_posix() for script in code.script_paths(root) for p in script_files(script)}
    return sorted(found | set(other_files(root, prompts, code)))


def release_code(root, prompts=(), code: ReleaseCode = DOUBTING_CODE) -> dict:
    """The manifest's `code`: the identities of the release's modules (a sorted multiset, no path) and of its other
    files by path (`prompts`: the prompt files its stages read, relative to the workflow folder `root`)."""
    root = Path(root).resolve()
    return {"scheme": SCHEME, "modules": sorted(closure_identities(code.script_paths(root)).values()),
            "files": {rel: file_identity(root / rel) for rel in other_files(root, prompts, code)}}


def _changed_modules(recorded: list[str], root: Path, code: ReleaseCode) -> list[str]:
    """The modules of the checkout whose identity the recorded multiset lacks (by path), and a line for recorded ones
    that no module of the checkout matches beyond those."""
    left = Counter(recorded)
    changed = []
    for module, identity in closure_identities(code.script_paths(root)).items():
        if left[identity]:
            left[identity] -= 1
        else:
            changed.append(module.relative_to(root).as_posix())
    gone = sum(left.values()) - len(changed)
    return changed + ([f"{gone} recorded module{'s' if gone > 1 else ''} no longer imported"] if gone > 0 else [])


def planned_code_differences(path, version: str, root, code: ReleaseCode = DOUBTING_CODE) -> list[str]:
    """What of the release's code differs in meaning from the code the release ledger at `path` records for `version`
    (the modules, by their path here, and the other files, a file gone counting): building `version` now would give
    a MANIFEST.json of other content. Empty when the ledger records no code for it. A record made before code
    identities (each file's sha256) is compared byte for byte."""
    recorded = read_ledger(path)["releases"].get(version, {}).get("code") or {}
    root = Path(root).resolve()
    if recorded and "scheme" not in recorded:
        return [rel for rel, digest in sorted(recorded.items())
                if not (root / rel).is_file() or sha256_file(root / rel) != digest]
    if not recorded:
        return []
    if recorded["scheme"] != SCHEME:
        return [f"recorded as {recorded['scheme']}"]
    files = recorded["files"]
    paths = sorted(set(files) | set(other_files(root, (), code)))
    return _changed_modules(recorded["modules"], root, code) + [
        rel for rel in paths if files.get(rel) != (file_identity(root / rel) if (root / rel).is_file() else None)]
