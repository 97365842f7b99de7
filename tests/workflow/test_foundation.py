"""The workflow foundation on the embedded demo, with Snakemake itself: the DAG, lint, the dedup
rules on the planted cases, and bad input stopping the run before any expensive stage."""

import csv
from pathlib import Path

import pytest

pytestmark = pytest.mark.workflow

FOUNDATION = ["work/doubting/demo/ids/train_excluded.tsv", "work/doubting/demo/shards/dev/0000.txt"]


def test_dry_run_lists_the_whole_dag(workflow):
    planned = set(workflow.planned_rules())
    expected = {
        "validate_msmarco_inputs", "dedup_train_queries", "shard_queries_demo",
        "index_bm25", "encode_passages", "index_dense",
        "agent_search", "grade", "generate_answer", "wood", "llm_identity", "audit_labels", "audit_runs",
        "audit_ranking", "human_audit_sheet", "human_audit_results", "assemble",
        "release_gate", "stage_release", "package", "report_doubting",
        "split_papers", "select_queries", "mine_negatives", "fine_tune_44b_cross_encoder", "fine_tune_44b_bi_encoder",
        "score_arms", "package_44b", "report_eval44b",
    }
    assert expected <= planned, f"missing from the DAG: {sorted(expected - planned)}"


def test_lint_is_clean(workflow):
    proc = workflow.snakemake("--lint", check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Congratulations" in output, output[-3000:]


def planted_and_excluded(root) -> tuple[set, set]:
    with open(root / "resources/demo/planted_duplicates.tsv", newline="") as fh:
        planted = {(r["query_id"], r["reason"], r["duplicate_of"]) for r in csv.DictReader(fh, delimiter="\t")}
    with open(root / "work/doubting/demo/ids/train_excluded.tsv", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    assert list(rows[0]) == ["query_id", "reason", "duplicate_of", "source_key", "source_file"]
    # each exclusion names its source: the dev file for a dev query (config.yaml lists it first), the test file's
    # key for a test query, the train queries for a repeat
    sources = {"queries.dev.small.tsv": "dev_queries", "queries.test.tsv": "heldout_queries[1]",
               "queries.train.tsv": "train_queries"}
    assert all(sources[Path(r["source_file"]).name] == r["source_key"] for r in rows)
    return planted, {(r["query_id"], r["reason"], r["duplicate_of"]) for r in rows}


def test_dedup_outputs_match_the_planted_duplicates(workflow):
    workflow.snakemake("--cores", "2", *FOUNDATION, "--config", "queries=all")
    root = workflow.root
    planted, excluded = planted_and_excluded(root)
    assert excluded == planted
    assert {reason for _, reason, _ in planted} == {"heldout", "repeat"}

    kept = (root / "work/doubting/demo/ids/train_collection.txt").read_text().split()
    train_ids = [line.split("\t")[0] for line in (root / "resources/demo/queries.train.tsv").read_text().splitlines()]
    assert kept == [q for q in train_ids if q not in {p[0] for p in planted}]
    dev_ids = [line.split("\t")[0] for line in (root / "resources/demo/queries.dev.small.tsv").read_text().splitlines()]
    assert (root / "work/doubting/demo/ids/dev_all.txt").read_text().split() == dev_ids

    shards = sorted((root / "work/doubting/demo/shards/train").glob("*.txt"))
    sharded = [q for path in shards for q in path.read_text().split()]
    assert sorted(sharded) == sorted(kept)


def test_default_demo_annotates_a_deterministic_sample(workflow):
    workflow.snakemake("--cores", "2", *FOUNDATION)
    first = (workflow.root / "work/doubting/demo/ids/train_collection.txt").read_text()
    workflow.snakemake(*FOUNDATION, "--cores", "2", "--forcerun", "dedup_train_queries")
    assert (workflow.root / "work/doubting/demo/ids/train_collection.txt").read_text() == first
    assert 0 < len(first.split()) <= 12
    # the sample takes the planted duplicates in (train_sample.with_duplicates): the demo shows the dedup
    planted, excluded = planted_and_excluded(workflow.root)
    assert excluded == planted
    repeated = {duplicate_of for _, reason, duplicate_of in planted if reason == "repeat"}
    assert repeated <= set(first.split())


@pytest.mark.parametrize("corrupt, words", [
    (lambda p: p.write_bytes(p.read_bytes() + b"99999\tbroken\tline\n"), "expected 2 tab-separated fields"),
    (lambda p: p.write_bytes(b""), "file is empty"),
    (lambda p: p.write_bytes(p.read_bytes() + b"123456789\tcaf\xe9\n"), "not valid UTF-8"),
])
def test_bad_input_stops_before_any_expensive_stage(workflow, corrupt, words):
    collection = workflow.root / "resources/demo/collection.tsv"
    corrupt(collection)
    proc = workflow.snakemake("--cores", "2", check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "collection.tsv" in output and words in output
    assert "Error in rule validate_msmarco_inputs" in output
    # nothing expensive started on MS MARCO, and nothing half-written is left for Snakemake to
    # trust (the 44b release does not read these inputs, so its jobs may legitimately finish)
    assert not (workflow.root / "work/index/demo").exists()
    assert not (workflow.root / "work/doubting/demo/agent").exists()
    assert not (workflow.root / "work/doubting/demo/inputs.json").exists()
