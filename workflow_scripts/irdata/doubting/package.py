"""The release folder of Doubting MS MARCO, built in two steps so that no path deletes a frozen release.

`stage_release` (build_package) builds the whole release in a staging folder under work/: the assembled
parquet configs, trec/ and ids/, the example scripts and the BM25 dev run, MANIFEST.json, README.md (the
dataset card, rendered from MANIFEST.json) and SHA256SUMS; then it checks the release ledger and refuses
a version already built with different content (irdata/ledger.py). Only a staged release that passed
these steps reaches `package` (run_package), which publishes it under its version (irdata.publish
publish_version: every file checked against SHA256SUMS, swapped in one step, an older version kept beside it).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..atomic import atomic_dir, json_text, write_json_atomic
from ..croissant import CROISSANT
from ..errors import InputError
from ..json_files import read_json
from ..ledger import check_ledger, content_hash
from ..publish import publish_version
from ..sources.base import CardWords, check_inputs_current
from . import card, manifest, select
from .assemble import DATA_FILES, ID_FILES, STATS, TREC_GRADED, TREC_STRICT
from .baseline_run import RUN_FILE, run_counts
from .release_croissant import release_croissant

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
EXAMPLES = ["load.py", "join_text.py", "evaluate.py"]


def release_files() -> list[str]:
    """Every file of a release, relative to its folder (declared as the outputs of stage_release, so that
    Snakemake keeps their checksums: a touched release reruns nothing)."""
    return [*DATA_FILES.values(), TREC_STRICT, TREC_GRADED, *ID_FILES.values(),
            *(f"examples/{name}" for name in EXAMPLES), RUN_FILE, "README.md", manifest.MANIFEST, CROISSANT,
            manifest.SHA256SUMS]


def selection_rules() -> str:
    doc = select.__doc__ or ""
    return " ".join(doc.split("\n\n", 1)[1].split()) if "\n\n" in doc else doc


def build_package(assembled_dir, out_dir, version: str, repo_id: str, inputs_json, identity_json, config: dict,
                  code: dict, batch_descriptions: dict, ledger, bm25_run, *, version_key: str,
                  failures_json=None, audit_json=None, raw_inputs: list[str] | None = None,
                  input_check: str | None = None, audit_ranking_json=None, human_audit_json=None,
                  downstream_json=None, card_words: CardWords) -> dict:
    """Build the release at `out_dir` (the staging folder); return the manifest. `code`: the identity of its code
    (MANIFEST.json's `code`, irdata/doubting/release_code.py). `bm25_run`: the BM25 dev run (bm25_dev_run),
    shipped as examples/bm25_dev.trec. `audit_ranking_json`: the audit's system-ranking agreement (audit_ranking),
    MANIFEST.json's `audit.system_ranking`;
    `human_audit_json`: the blinded human audit's results (human_audit_results); `downstream_json`: the
    downstream comparison (downstream_compare), when run; `card_words`: what the card says of the build's source
    (irdata.sources.registry.card_words). Raises
    ReleaseFrozenError when the ledger holds `version` with other content (naming `version_key`, the config
    key that sets it), and InputError when `raw_inputs` (the input files the config names) are not the files
    inputs.json records (`input_check`: the rule that checked them, which the message tells to rerun)."""
    assembled_dir, out_dir = Path(assembled_dir), Path(out_dir)
    stats = read_json(assembled_dir / STATS)
    inputs = read_json(inputs_json)
    if raw_inputs is not None:
        check_inputs_current(inputs_json, inputs, raw_inputs, input_check)
    identity = read_json(identity_json)
    failures = read_json(failures_json) if failures_json is not None else None
    audit = read_json(audit_json) if audit_json is not None else None
    downstream = read_json(downstream_json) if downstream_json is not None else None
    if audit is not None and audit_ranking_json is not None:
        audit["system_ranking"] = read_json(audit_ranking_json)
    human_audit = read_json(human_audit_json) if human_audit_json is not None else None
    with atomic_dir(out_dir) as tmp:
        for rel in [*DATA_FILES.values(), TREC_STRICT, TREC_GRADED, *ID_FILES.values()]:
            src = assembled_dir / rel
            if not src.exists():
                raise InputError(src, "assembled file missing; rerun assemble")
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, tmp / rel)
        (tmp / "examples").mkdir()
        for name in EXAMPLES:
            shutil.copyfile(EXAMPLES_DIR / name, tmp / "examples" / name)
        if not Path(bm25_run).exists():
            raise InputError(bm25_run, "BM25 dev run missing; rerun bm25_dev_run")
        shutil.copyfile(bm25_run, tmp / RUN_FILE)
        man = manifest.build_manifest(stats, version, repo_id, inputs.get("files", inputs), identity, config, code,
                                      selection_rules(), failures, audit, run_counts(tmp / RUN_FILE), downstream,
                                      human_audit)
        (tmp / manifest.MANIFEST).write_text(json_text(man), encoding="utf-8", newline="\n")
        # the card says what the manifest records: one source for both
        (tmp / "README.md").write_text(card.render(man, inputs, batch_descriptions, card_words), encoding="utf-8",
                                       newline="\n")
        # after every other file, before SHA256SUMS, which lists it (the order: release_croissant)
        release_croissant(tmp, version, repo_id, config["doubting"]["on_hub"], config["doubting"]["license"],
                          config["doubting"]["paper"], EXAMPLES)
        sums = manifest.write_sha256sums(tmp)
        # refused here, the temporary folder is removed and nothing is published
        check_ledger(ledger, version, content_hash(sums), version_key)
    return man


def run_stage_release(*, inputs_checked, assembled_files, inputs_json, llm_identity, failures, bm25_run, release,
                      settings: dict, release_code: dict, assembled, staged, audit=None, audit_ranking=None,
                      human_audit=None, downstream=None) -> dict:
    """The stage_release rule: the release (its files: `release`) built in `staged` from the assembled files in
    `assembled` (`assembled_files`), once the raw inputs are checked (`inputs_checked`); return the manifest.
    `release_code`: the identity of the release's code, as the planning found it (MANIFEST.json's `code`)."""
    s = settings
    return build_package(
        assembled, staged, s["version"], s["repo_id"], inputs_json, llm_identity, dict(s["config"]), dict(release_code),
        dict(s["batch_descriptions"]), s["ledger"], bm25_run, version_key=s["version_key"],
        failures_json=failures, audit_json=audit, audit_ranking_json=audit_ranking, human_audit_json=human_audit,
        raw_inputs=list(s["raw_inputs"]), input_check=s["input_check"], downstream_json=downstream,
        card_words=CardWords(**s["card_words"]),
    )


def run_package(*, checked, release, published, settings: dict, staged) -> dict:
    """The package rule: the staged release in `staged` (its files: `release`) published, once the raw inputs
    are checked (`checked`); its record written to `published`."""
    record = publish_version(staged, settings["package_dir"], settings["ledger"], "stage_release", manifest.MANIFEST,
                             settings["version_key"])
    write_json_atomic(published, record)
    return record
