"""Every build holds out its own evaluation queries, listed or not (irdata/heldout.py): which files a build holds
out, the planning refusal of a train file that is also held out (naming both keys), the input check's refusal of a
held-out file that holds every train query, and the issue's reproduction: a build that leaves its dev file out of
heldout_queries still keeps its dev queries out of train, each exclusion naming its source."""

import csv
import json
import os
import shutil
from pathlib import Path

import pytest
import yaml

from demo_config import REPO, demo_build, workflow_builds
from irdata.builds import deep_merge
from irdata.dedup import EXCLUDED_COLUMNS, sample_settings, write_query_ids
from irdata.doubting.stages import STAGES
from irdata.errors import InputError
from irdata.heldout import Source, combine_heldout, read_checked_heldout, write_checked_heldout
from irdata.query_files import read_queries
from irdata.sources.base import source_heldout_files
from irdata.sources.msmarco import heldout_files as msmarco_heldout_files
from irdata.sources.msmarco import raw_input_paths, run_validate_msmarco_inputs
from irdata.sources.registry import train_heldout_conflicts

DEMO = "resources/demo"
STAGE = {stage.name: stage for stage in STAGES}


def doubting(**over) -> dict:
    base = {"source": {"format": "msmarco", "heldout_queries": []}, "dev_queries": "dev.tsv",
            "heldout_queries": [], "audit": {"queries": None}}
    return deep_merge(base, over)


def test_an_msmarco_build_holds_out_its_dev_and_audit_queries_listed_or_not():
    assert msmarco_heldout_files(doubting()) == [Source("dev_queries", "dev.tsv")]
    got = msmarco_heldout_files(doubting(heldout_queries=["test.tsv", "dev.tsv"], audit={"queries": "dl19.tsv"}))
    assert got == [Source("dev_queries", "dev.tsv", ("heldout_queries[1]",)), Source("heldout_queries[0]", "test.tsv"),
                   Source("audit.queries", "dl19.tsv")]
    # the audit's queries listed too: one source, under the first key naming it
    got = msmarco_heldout_files(doubting(heldout_queries=["dl19.tsv"], audit={"queries": "dl19.tsv"}))
    assert got[1] == Source("heldout_queries[0]", "dl19.tsv", ("audit.queries",))
    assert got[1].record() == {"keys": ["heldout_queries[0]", "audit.queries"], "file": "dl19.tsv"}


def test_a_beir_build_holds_out_its_listed_files_and_audit_queries_beside_its_splits():
    d = doubting(source={"format": "beir", "heldout_queries": ["x.tsv"]}, audit={"queries": "a.tsv"})
    assert source_heldout_files(d) == [Source("source.heldout_queries[0]", "x.tsv"), Source("audit.queries", "a.tsv")]


def test_the_demo_holds_out_its_dev_test_and_audit_files_as_raw_inputs():
    demo = demo_build()
    files = [s.file for s in msmarco_heldout_files(demo["doubting"])]
    assert files == [f"{DEMO}/queries.dev.small.tsv", f"{DEMO}/queries.test.tsv"]  # the audit's are the test file
    assert set(files) <= set(raw_input_paths(demo))


# -- at planning: a held-out file that is the train file -----------------------------------------------------------


def builds_with(over: dict) -> dict:
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    return workflow_builds(deep_merge(config, {"builds": {"demo": None, "mine": {
        "version": "v1", **{key: f"{DEMO}/{name}" for key, name in (
            ("collection", "collection.tsv"), ("train_queries", "queries.train.tsv"),
            ("train_qrels", "qrels.train.tsv"), ("dev_queries", "queries.dev.small.tsv"),
            ("dev_qrels", "qrels.dev.small.tsv"), ("dev_answers", "answers.dev.small.jsonl"))}, **over}}}))


def test_the_dev_file_named_as_train_queries_stops_the_planning_naming_both_keys():
    lines = train_heldout_conflicts(builds_with({"train_queries": f"{DEMO}/queries.dev.small.tsv"}), REPO)
    assert lines == [f"builds.mine.dev_queries: {DEMO}/queries.dev.small.tsv is the file of "
                     f"builds.mine.train_queries ({DEMO}/queries.dev.small.tsv): its queries would be held out and "
                     "trained on at once; name the train queries' own file"]


def test_the_train_file_listed_as_held_out_stops_the_planning_under_each_key_naming_it():
    train = f"{DEMO}/queries.train.tsv"
    lines = train_heldout_conflicts(builds_with({"heldout_queries": [f"{DEMO}/queries.test.tsv", train],
                                                 "audit": {"queries": train}}), REPO)
    assert [line.split(":")[0] for line in lines] == ["builds.mine.heldout_queries[1]", "builds.mine.audit.queries"]
    assert all("builds.mine.train_queries" in line for line in lines)
    assert train_heldout_conflicts(builds_with({}), REPO) == []


def test_a_copy_or_a_link_of_the_train_file_stops_the_planning_too(tmp_path):
    shutil.copyfile(REPO / DEMO / "queries.train.tsv", tmp_path / "copy.tsv")
    os.symlink(REPO / DEMO / "queries.train.tsv", tmp_path / "link.tsv")
    (tmp_path / "other.tsv").write_bytes((REPO / DEMO / "queries.train.tsv").read_bytes().replace(b"e", b"a"))
    lines = train_heldout_conflicts(builds_with({"heldout_queries": [str(tmp_path / n) for n in (
        "copy.tsv", "link.tsv", "other.tsv")]}), REPO)
    assert len(lines) == 2
    assert lines[0].startswith(f"builds.mine.heldout_queries[0]: {tmp_path}/copy.tsv has the same content (sha256 ")
    assert lines[1].startswith(f"builds.mine.heldout_queries[1]: {tmp_path}/link.tsv is the file of")


# -- at the input check and the dedup: the reproduction with the demo's files -----------------------------


def check_and_dedup(tmp_path, d: dict) -> tuple[dict, list[dict]]:
    """The MS MARCO input check and the dedup of build section `d` (its paths from the repository), with the
    settings their Stages give and the held-out files common.smk gives the check; the demo's sample left out."""
    config = {"doubting": d, "queries": "all"}
    out = tmp_path / "out"
    paths = {key: REPO / d[key] for key in ("collection", "train_queries", "dev_queries")}
    inputs = out / "inputs.json"
    run_validate_msmarco_inputs(
        collection=paths["collection"], train_queries=paths["train_queries"], raw_train_qrels=REPO / d["train_qrels"],
        dev_queries=paths["dev_queries"], raw_dev_qrels=REPO / d["dev_qrels"], raw_dev_answers=REPO / d["dev_answers"],
        raw_heldout_queries=[s.file for s in msmarco_heldout_files(d)], train_qrels=out / "train.qrels",
        dev_qrels=out / "dev.qrels", dev_answers=out / "dev_answers.jsonl", heldout_queries=out / "heldout.tsv",
        report=inputs, checked=out / "checked.json", store=None,
        settings=STAGE["validate_msmarco_inputs"].settings(config))
    write_query_ids(validated=inputs, train_queries=paths["train_queries"], dev_queries=paths["dev_queries"],
                    heldout_queries=out / "heldout.tsv", train_collection=out / "collection.txt",
                    train_excluded=out / "excluded.tsv", dev_all=out / "dev_all.txt", report=out / "dedup.json",
                    settings=sample_settings(config))
    with open(out / "excluded.tsv", newline="") as fh:
        return json.loads(inputs.read_text()), list(csv.DictReader(fh, delimiter="\t"))


@pytest.fixture
def in_repo(monkeypatch):
    monkeypatch.chdir(REPO)  # the config's relative paths, as the workflow runs


def test_a_build_that_does_not_list_its_dev_file_still_holds_its_dev_queries_out(tmp_path, in_repo):
    d = demo_build()["doubting"]
    d["heldout_queries"] = [f"{DEMO}/queries.test.tsv"]  # the dev file left out of the list
    d["audit"]["queries"] = None
    inputs, excluded = check_and_dedup(tmp_path, d)
    assert [s["keys"] for s in inputs["heldout_sources"]] == [["dev_queries"], ["heldout_queries[0]"]]
    with open(REPO / DEMO / "planted_duplicates.tsv", newline="") as fh:
        planted = [(r["query_id"], r["reason"], r["duplicate_of"]) for r in csv.DictReader(fh, delimiter="\t")]
    assert [(r["query_id"], r["reason"], r["duplicate_of"]) for r in excluded] == planted
    dev_ids = set(read_queries(REPO / DEMO / "queries.dev.small.tsv").column("query_id").to_pylist())
    for row in excluded:
        source = ("dev_queries" if row["duplicate_of"] in dev_ids else "heldout_queries[0]"
                  ) if row["reason"] == "heldout" else "train_queries"
        assert (row["source_key"], list(row)) == (source, EXCLUDED_COLUMNS)
    assert {r["source_key"] for r in excluded} == {"dev_queries", "heldout_queries[0]", "train_queries"}


def test_the_audit_queries_are_held_out_and_named(tmp_path, in_repo):
    """An audit file of one query: the first train query's text in upper case (no other source holds it)."""
    qid, text = (REPO / DEMO / "queries.train.tsv").read_text().splitlines()[0].split("\t")
    audit = tmp_path / "audit.tsv"
    audit.write_text(f"a1\t{text.upper()}?\n")
    d = demo_build()["doubting"]
    d["heldout_queries"], d["audit"]["queries"] = [], str(audit)
    inputs, excluded = check_and_dedup(tmp_path, d)
    assert inputs["heldout_sources"][-1] == {"keys": ["audit.queries"], "file": str(audit), "queries": 1}
    assert {"query_id": qid, "reason": "heldout", "duplicate_of": "a1", "source_key": "audit.queries",
            "source_file": str(audit)} in excluded


def test_a_train_file_of_the_dev_queries_under_another_name_is_refused_by_the_input_check(tmp_path, in_repo):
    """The dev queries as train queries in a file of other bytes (a header line, CRLF line ends) pass the planning
    check; the input check refuses them, naming both files and keys."""
    dev = (REPO / DEMO / "queries.dev.small.tsv").read_text()
    train = tmp_path / "train.tsv"
    train.write_text("qid\ttext\r\n" + dev.replace("\n", "\r\n"))
    d = demo_build()["doubting"]
    d["train_queries"], d["train_qrels"] = str(train), f"{DEMO}/qrels.dev.small.tsv"
    assert train_heldout_conflicts({"mine": {"doubting": d}}, REPO) == []
    with pytest.raises(InputError) as error:
        check_and_dedup(tmp_path, d)
    assert error.value.path == str(train) and error.value.field == "train_queries"
    assert f"is also a query of {DEMO}/queries.dev.small.tsv, held out as dev_queries" in str(error.value)
    assert not (tmp_path / "out/heldout.tsv").exists()


def test_the_checked_held_out_file_reads_back(tmp_path):
    import pyarrow as pa

    quoted = 'a "quoted" text'
    sources = [(Source("dev_queries", "d.tsv"), pa.table({"query_id": ["1", "2"], "text": [quoted, ""]})),
               (Source("audit.queries", "a.tsv"), pa.table({"query_id": ["1", "3"], "text": [quoted, "x"]}))]
    held, counts = combine_heldout(sources)
    assert counts == {"heldout_queries": 3, "heldout_repeats": 1}
    write_checked_heldout(held, tmp_path / "h.tsv")
    assert read_checked_heldout(tmp_path / "h.tsv").equals(held)
    write_checked_heldout(combine_heldout([])[0], tmp_path / "empty.tsv")
    assert read_checked_heldout(tmp_path / "empty.tsv").num_rows == 0
    assert Path(tmp_path / "h.tsv").read_text() == '1\ta "quoted" text\t0\n2\t\t0\n3\tx\t1\n'


def test_the_checks_given_bare_files_hold_the_dev_queries_out_before_them(tmp_path):
    """validate_msmarco_inputs given the listed files alone (not their sources) still holds the dev queries out,
    first: the sources are those msmarco_heldout_files gives."""
    from irdata.sources.msmarco import validate_msmarco_inputs

    demo = REPO / DEMO
    report = validate_msmarco_inputs(*(demo / name for name in (
        "collection.tsv", "queries.train.tsv", "qrels.train.tsv", "queries.dev.small.tsv", "qrels.dev.small.tsv",
        "answers.dev.small.jsonl")), [demo / "queries.test.tsv"])
    assert [s["keys"] for s in report["heldout_sources"]] == [["dev_queries"], ["heldout_queries[0]"]]
