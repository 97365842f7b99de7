"""What stands between the LLM stages and a release: the gate per stage and split (failures.json,
MANIFEST.json's `failures`, the card's paragraph), and the check that the release comes from the raw
inputs the config names (inputs.json against the files)."""

import json
from pathlib import Path

import pytest

from irdata.doubting import card
from irdata.doubting.assemble import assemble
from irdata.doubting.gate import ReleaseGateError, run_gate
from irdata.doubting.manifest import llm_failures
from irdata.doubting.package import build_package
from irdata.doubting.release_code import release_code
from irdata.errors import InputError
from irdata.provenance import sha256_file
from irdata.sources.base import check_inputs_current
from irdata.sources.msmarco import input_paths
from irdata.sources.registry import card_words
from synthetic_doubting import Work, edge_cases
from unit.test_doubting_package import BATCH_DESCRIPTIONS, REPO, config_used, write_run

LIMITS = {"agent_search": 0.01, "grade": 0.005, "generate_answer": 0.01, "wood": 0.005, "audit_labels": 0.005}
SETTINGS = {"limits": LIMITS, "accept": False}


def stats(tmp_path: Path, name: str, units: str, total: int, by_kind: dict, retryable=None, **summary) -> str:
    """One job's stats file, as annotate/common.py finish_job writes it."""
    path = tmp_path / f"{name}.json"
    failed = sum(by_kind.values())
    path.write_text(json.dumps({"failures": {
        "units": units, "total": total, "failed": failed, "retryable": failed if retryable is None else retryable,
        "by_kind": by_kind}, "llm": {"tokens": {}}, **summary}))
    return str(path)


def clean_build(tmp_path: Path) -> dict:
    """Every LLM stage of a build, one job a split, nothing failed."""
    return {("agent_search", "train"): [stats(tmp_path, "a-t", "episodes", 100, {})],
            ("agent_search", "dev"): [stats(tmp_path, "a-d", "episodes", 10, {})],
            ("grade", "train"): [stats(tmp_path, "g-t0", "pairs", 1000, {}, grade_paths={"parsed": 1000})],
            ("grade", "dev"): [stats(tmp_path, "g-d0", "pairs", 100, {}, grade_paths={"parsed": 100})],
            ("generate_answer", "train"): [stats(tmp_path, "ga", "queries", 100, {})],
            ("wood", "train"): [stats(tmp_path, "w", "proposals", 900, {})]}


def test_each_split_is_held_to_its_stages_limit(tmp_path):
    jobs = clean_build(tmp_path)
    # train 0.1% and dev 3.0% failed grades: together 0.36%, under the 0.5% limit; dev alone is over it
    jobs[("grade", "train")] = [stats(tmp_path, "g-t0", "pairs", 1000, {"timeout": 1}, grade_paths={"parsed": 999}),
                                stats(tmp_path, "g-t1", "pairs", 1000, {"timeout": 1}, grade_paths={"parsed": 999})]
    jobs[("grade", "dev")] = [stats(tmp_path, "g-d0", "pairs", 200, {"unparseable": 4, "http_500": 2}, retryable=2,
                                    grade_paths={"parsed": 150, "structured": 44})]
    with pytest.raises(ReleaseGateError) as error:
        run_gate(jobs, SETTINGS, tmp_path / "failures.json")
    message = str(error.value)
    assert "grade (dev): 6 of 200 pairs failed (3.00%), over the limit of 0.50% (annotation.failure_limits.grade)" \
        in message
    assert "commonest: unparseable 4, http_500 2; 2 retryable, in 1 job(s)" in message
    assert "grade (train)" not in message and "agent_search" not in message
    assert "unparseable: replies that are not a grade" in message and "llm.base_urls" in message
    assert not (tmp_path / "failures.json").exists()

    record = run_gate(jobs, {**SETTINGS, "accept": True}, tmp_path / "failures.json")
    assert record == json.loads((tmp_path / "failures.json").read_text())
    grade = record["stages"]["grade"]
    assert (grade["total"], grade["failed"], grade["splits"]["train"]["failed"]) == (2200, 8, 2)
    assert grade["splits"]["train"]["fraction"] == pytest.approx(0.001)
    assert grade["splits"]["dev"]["fraction"] == pytest.approx(0.03)
    # the path of every label, per split, into MANIFEST.json
    assert grade["splits"]["train"]["grade_paths"] == {"parsed": 1998}
    assert grade["splits"]["dev"]["grade_paths"] == {"parsed": 150, "structured": 44}
    manifest = llm_failures(record)
    assert manifest["accepted_over_limit"] is True
    assert manifest["stages"]["grade"]["splits"]["dev"] == {
        "units": "pairs", "total": 200, "failed": 6, "retryable": 2, "by_kind": {"http_500": 2, "unparseable": 4},
        "grade_paths": {"parsed": 150, "structured": 44}}
    assert "grade_paths" not in manifest["stages"]["agent_search"]["splits"]["train"]
    text = card.llm_failures_text(manifest)
    assert "grade: train 2 of 2,000 pairs (timeout 2), dev 6 of 200 pairs (http_500 2, unparseable 4)" in text
    assert "published over the configured failure limits" in text


def test_the_same_failures_in_one_split_under_the_limit_pass(tmp_path):
    jobs = clean_build(tmp_path)
    jobs[("grade", "dev")] = [stats(tmp_path, "g-d0", "pairs", 2000, {"unparseable": 6}, retryable=0)]
    record = run_gate(jobs, SETTINGS, tmp_path / "failures.json")
    assert record["over_limit"] == [] and record["accepted"] is False
    assert "audit_labels" not in record["stages"]  # no audit configured, no stage


def test_agent_protocol_failures_name_the_tool_parser_and_how_to_rerun(tmp_path):
    jobs = clean_build(tmp_path)
    jobs[("agent_search", "train")] = [stats(tmp_path, "a-t", "episodes", 100, {"protocol": 100}, retryable=0)]
    with pytest.raises(ReleaseGateError) as error:
        run_gate(jobs, SETTINGS, tmp_path / "failures.json", journal_dir="/shared/journal")
    message = str(error.value)
    assert "agent_search (train): 100 of 100 episodes failed (100.00%)" in message
    assert "commonest: protocol 100; 0 retryable" in message
    assert "--enable-auto-tool-choice --tool-call-parser" in message and "llm.tool_protocol" in message
    assert "/shared/journal/agent_search-*.jsonl" in message and "-R agent_search" in message
    assert "llm.base_urls" not in message  # no transport failure to check


def test_the_audits_failed_grades_are_gated(tmp_path):
    jobs = clean_build(tmp_path)
    jobs[("audit_labels", "audit")] = [stats(tmp_path, "audit", "pairs", 120, {"timeout": 16},
                                             grade_paths={"parsed": 104})]
    with pytest.raises(ReleaseGateError, match=r"audit_labels \(audit\): 16 of 120 pairs failed \(13.33%\), over the "
                                               r"limit of 0.50% \(annotation.failure_limits.audit_labels\)"):
        run_gate(jobs, SETTINGS, tmp_path / "failures.json")
    jobs[("audit_labels", "audit")] = [stats(tmp_path, "audit", "pairs", 120, {}, grade_paths={"parsed": 120})]
    record = run_gate(jobs, SETTINGS, tmp_path / "failures.json")
    assert record["stages"]["audit_labels"]["splits"]["audit"]["grade_paths"] == {"parsed": 120}


def test_a_stats_file_that_is_not_one_is_named(tmp_path):
    jobs = clean_build(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    jobs[("wood", "train")] = [str(bad)]
    with pytest.raises(InputError, match="bad.json: not a stats file of an LLM job"):
        run_gate(jobs, SETTINGS, tmp_path / "failures.json")


# -- the raw inputs ---------------------------------------------------------------------------------

def raw_inputs(folder: Path) -> tuple[list[str], dict]:
    """Input files and the inputs.json `files` that the input check would record for them."""
    folder.mkdir(parents=True, exist_ok=True)
    names = ["collection.tsv", "train.tsv", "train.qrels", "dev.tsv", "dev.qrels", "answers.jsonl"]
    for name in names:
        (folder / name).write_text(f"{name}\n")
    paths = input_paths(*(str(folder / n) for n in names), [str(folder / "dev.tsv")])
    return paths, {"files": {p: {"sha256": sha256_file(p), "bytes": Path(p).stat().st_size} for p in paths}}


def test_the_inputs_the_config_names_must_be_the_ones_checked(tmp_path):
    paths, report = raw_inputs(tmp_path / "demo")
    assert len(paths) == 6  # the held-out dev queries once
    check_inputs_current("inputs.json", report, paths, "validate_msmarco_inputs")

    # another overlay names other files: both are named
    other, _ = raw_inputs(tmp_path / "production")
    with pytest.raises(InputError) as error:
        check_inputs_current("work/doubting/inputs.json", report, other, "validate_msmarco_inputs")
    message = str(error.value)
    assert message.startswith("work/doubting/inputs.json, field 'files': the work/ outputs were built from other "
                              "inputs than the config names")
    assert str(tmp_path / "demo/collection.tsv") in message and str(tmp_path / "production/collection.tsv") in message
    assert "-R validate_msmarco_inputs" in message

    # the same path, other content
    Path(paths[1]).write_text("other queries\n")
    with pytest.raises(InputError, match=r"train.tsv changed since the input check .*sha256 .*, 10 bytes then; .*, 14 "
                                         r"bytes now\). .*-R validate_msmarco_inputs"):
        check_inputs_current("inputs.json", report, paths, "validate_msmarco_inputs")
    Path(paths[1]).unlink()
    with pytest.raises(InputError, match="train.tsv, an input the work/ outputs were built from, is gone"):
        check_inputs_current("inputs.json", report, paths, "validate_msmarco_inputs")


def test_stage_release_refuses_work_built_from_other_inputs(tmp_path):
    assemble(tmp_path / "assembled", **edge_cases(tmp_path / "w"))
    base = Work(tmp_path / "w").base
    paths, report = raw_inputs(tmp_path / "demo")
    (base / "inputs.json").write_text(json.dumps(report))
    args = (tmp_path / "assembled", tmp_path / "staged", "v1", "r/x", base / "inputs.json", base / "llm_identity.json",
            config_used("v1"), release_code(REPO), BATCH_DESCRIPTIONS, tmp_path / "ledger.json",
            write_run(tmp_path / "assembled", tmp_path / "bm25_dev.trec"))
    other, _ = raw_inputs(tmp_path / "production")
    words = card_words(config_used("v1")["doubting"])
    with pytest.raises(InputError, match="built from other inputs than the config names"):
        build_package(*args, raw_inputs=other, version_key="builds.demo.version", card_words=words)
    assert not (tmp_path / "staged").exists() and not (tmp_path / "ledger.json").exists()
    build_package(*args, raw_inputs=paths, version_key="builds.demo.version", card_words=words)
    assert (tmp_path / "staged/MANIFEST.json").exists()


def test_the_gate_sums_what_the_agent_did_and_the_card_tells_it_from_those_counts(tmp_path):
    from irdata.doubting.card import agent_text

    behaviour = {"queries": 3, "with_proposals": 2, "proposals": 9, "searches": 4, "reformulations": 1,
                 "example_copies": 2}
    jobs = {**clean_build(tmp_path),
            ("agent_search", "train"): [stats(tmp_path, f"a-t{i}", "episodes", 3, {}, stage="agent_search",
                                              **behaviour) for i in range(2)]}
    record = run_gate(jobs, SETTINGS, tmp_path / "failures.json")
    assert record["agent"]["train"] == {key: 2 * n for key, n in behaviour.items()}
    text = agent_text(record["agent"], "M", "X")
    # the dev job wrote no counts: it adds zeros, never a claim
    assert ("proposed 18 answer passages for 4 of its 6 queries. Beyond each query's first search, the model asked "
            "for 8 searches: 2 reformulated the query, 4 copied the prompt's example query, 2 repeated it.") in text
    copies_only = {"train": {**behaviour, "reformulations": 0, "example_copies": 4}}
    assert "none reformulated the query, 4 copied the prompt's example query." in agent_text(copies_only, "M", "X")
    assert "reformulat" not in agent_text(None, "M", "X")
