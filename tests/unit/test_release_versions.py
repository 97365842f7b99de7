"""Every release is versioned alike (irdata/ledger.py, irdata/frozen.py): the release ledger read strictly and never
written over when damaged, and what planning says of each release (the Doubting builds', the 44b Eval's) that a real
run would refuse: a frozen version, a damaged ledger, a published folder that would lose a later version or a
user's files. The dry-runs and real runs that show these: tests/workflow/test_release_versions_runs.py."""

import json

import pytest

from demo_config import REPO, demo_build, workflow_builds
from irdata.frozen import (
    EVAL44B,
    doubting_release,
    eval44b_release,
    job_release,
    publication_lines,
    release_notices,
    release_problems,
    release_stop,
)
from irdata.ledger import LedgerError, read_ledger, record_ledger
from irdata.provenance import sha256sums_text

ENTRY = {"sha256sums_sha256": "ab" * 32, "package": "results/x"}
DAMAGED = [
    (b"", "the file is empty"),
    (b"{}", "no `releases`"),
    (b"[]", "a list, not an object with `releases`"),
    (b'{"releases": {"v1": {"sha256sums_sha256": "', "not JSON (Unterminated string starting at, line 1, column 43, "
                                                     "the file ends inside it)"),
    (b'{"releases": {"v1": ', "not JSON (Expecting value, line 1, column 21, the file ends inside it)"),
    (b'{"releases": {}} x', "not JSON (Extra data, line 1, column 18)"),
    (b'{"releases": []}', "`releases` is a list, not an object of versions"),
    (b'{"releases": {"v1": {"package": "results/x"}}}', "`releases.v1` has no `sha256sums_sha256`"),
    (b'{"releases": {"v1": {"sha256sums_sha256": "x", "package": "results/x"}}}',
     "`releases.v1.sha256sums_sha256` is not a sha256"),
    (b'{"releases": {"v1": {"sha256sums_sha256": "' + b"ab" * 32 + b'", "package": "r", "config": []}}}',
     "`releases.v1.config` is a list"),
    (b'{"releases": {"v1": 3}}', "`releases.v1` is a number, not an object"),
    (b"\xff\xfe{}", "not UTF-8 text (byte 1)"),
]


@pytest.mark.parametrize("data, what", DAMAGED, ids=[what[:30] for _, what in DAMAGED])
def test_a_damaged_ledger_is_refused_naming_it_and_the_fix_and_never_written_over(tmp_path, data, what):
    ledger = tmp_path / "ledger.json"
    ledger.write_bytes(data)
    with pytest.raises(LedgerError) as error:
        read_ledger(ledger)
    assert error.value.what == what
    assert str(error.value) == (f"{ledger}: the release ledger is damaged: {what}; restore it from your backup (it is "
                                'JSON: {"releases": {"<version>": {"sha256sums_sha256": ..., "package": ...}}}), '
                                "or remove it to forget every version it froze")
    with pytest.raises(LedgerError):
        record_ledger(ledger, "v2", "cd" * 32, "results/x")
    assert ledger.read_bytes() == data


def test_a_ledger_an_editor_saved_with_a_byte_order_mark_is_read_and_kept(tmp_path):
    ledger = tmp_path / "ledger.json"
    ledger.write_bytes(b"\xef\xbb\xbf" + json.dumps({"releases": {"v1": ENTRY}}).encode())
    assert read_ledger(ledger) == {"releases": {"v1": ENTRY}}
    record_ledger(ledger, "v2", "cd" * 32, "results/x", {"k": 1})
    assert set(read_ledger(ledger)["releases"]) == {"v1", "v2"}


def all_releases(config: dict) -> list:
    builds = workflow_builds(config)
    return [*(doubting_release(name, built) for name, built in builds.items()), eval44b_release(config)]


def demo_config(tmp_path) -> dict:
    """config.yaml with both releases' ledgers and folders under `tmp_path`."""
    import yaml

    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["builds"]["demo"].update(release_ledger=str(tmp_path / "demo-ledger.json"),
                                    package_dir=str(tmp_path / "results/demo"))
    config["eval44b"].update(release_ledger=str(tmp_path / "eval44b-ledger.json"),
                             release=str(tmp_path / "results/44b-eval"))
    return config


def test_the_44b_release_is_frozen_with_its_config_as_a_build_is(tmp_path):
    config = demo_config(tmp_path)
    [_, e44] = all_releases(json.loads(json.dumps(config)))
    assert (e44.key, e44.version, e44.version_key, e44.manifest) == (EVAL44B, "v0.1-demo", "eval44b.version",
                                                                     "manifest.json")
    record_ledger(e44.ledger, e44.version, "ab" * 32, e44.folder, e44.config)
    assert release_problems(all_releases(json.loads(json.dumps(config))), REPO) == []
    # the dense search setting the miners read (and the arms): the 44b release is frozen, and so is the demo's
    # once its ledger records it
    config["retrieval"] = {"dense": {"ef_search": 200}}
    problems = release_problems(all_releases(config), REPO)
    assert release_notices(problems) == [
        "44b Eval: version v0.1-demo is frozen and retrieval.dense.ef_search changed; a real run that builds it would "
        "stop; set eval44b.version (e.g. --config 'eval44b={version: v0.1-demo-2}', or an overlay line)"]
    assert release_stop(problems).splitlines()[1:] == [
        f"  44b Eval: version v0.1-demo (release ledger {e44.ledger}) was built with other values of "
        "retrieval.dense.ef_search.",
        "    Set a new version: add --config 'eval44b={version: v0.1-demo-2}' to the command, or `eval44b: {version: "
        "...}` to your overlay."]


def test_a_damaged_ledger_is_one_line_at_planning_and_the_other_release_is_still_checked(tmp_path):
    config = demo_config(tmp_path)
    (tmp_path / "demo-ledger.json").write_text("{}")
    problems = release_problems(all_releases(config), REPO)
    assert release_notices(problems) == [
        f"build demo: the release ledger {tmp_path}/demo-ledger.json is damaged (no `releases`); a real run that "
        "builds it would stop; restore it from your backup (it is JSON: {\"releases\": {\"<version>\": "
        "{\"sha256sums_sha256\": ..., \"package\": ...}}}), or remove it to forget every version it froze"]
    stop = release_stop(problems).splitlines()
    assert stop[0].startswith("Damaged release ledgers") and len(stop) == 3
    assert stop[2].startswith("    Restore it from your backup")


def publish_folder(folder, version: str, manifest="MANIFEST.json") -> None:
    """A published release of `version` at `folder`: its manifest and SHA256SUMS."""
    folder.mkdir(parents=True)
    (folder / manifest).write_text(json.dumps({"version": version}))
    (folder / "SHA256SUMS").write_text(sha256sums_text(folder, [manifest]))


def test_an_earlier_version_coming_back_over_a_later_one_is_named_with_both_ways_on(tmp_path):
    """After `--config 'builds={demo: {version: v0.2-demo}}'` published v0.2-demo, a plain run (config.yaml's
    v0.1-demo, recorded before) would put v0.1-demo back: planning says so, for a real run to stop."""
    config = demo_config(tmp_path)
    demo = doubting_release("demo", workflow_builds(json.loads(json.dumps(config)))["demo"])
    for version in ("v0.1-demo", "v0.2-demo"):
        record_ledger(demo.ledger, version, "ab" * 32, demo.folder, demo.config)
    publish_folder(tmp_path / "results/demo", "v0.2-demo")
    problems = release_problems(all_releases(config), REPO)
    folder = tmp_path / "results/demo"
    assert release_stop(problems).splitlines() == [
        "Published release folders: this run would publish over them what they must not lose.",
        f"  build demo: {folder} holds release v0.2-demo, and this run would put v0.1-demo, which its ledger records "
        "as published before, back in its place.",
        "    To build v0.2-demo, run with the config it was built with (--config 'builds={demo: {version: "
        f"v0.2-demo}}}}' and its overlays); to publish v0.1-demo there again, move {folder} away first."]
    # the first publication of a version set with --config is no going back
    config["builds"]["demo"]["version"] = "v0.3-demo"
    assert release_problems(all_releases(config), REPO) == []


def test_a_users_files_in_a_published_folder_are_named_at_planning(tmp_path):
    config = demo_config(tmp_path)
    folder = tmp_path / "results/44b-eval"
    publish_folder(folder, "v0.1-demo", "manifest.json")
    for name in ("notes.txt", "my/run.trec", "a.csv", "b.csv"):
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text("mine")
    [problem] = release_problems(all_releases(config), REPO)
    assert problem.notice() == (
        f"44b Eval: {folder} holds files its SHA256SUMS does not list: a.csv, b.csv, my/run.trec and 1 more; a real "
        "run that builds it would stop; a release folder holds exactly what its SHA256SUMS lists, and publishing "
        f"would move them aside with release v0.1-demo or drop them: move them out of {folder}, then run again")


def test_a_job_belongs_to_its_builds_release_or_the_44b_eval():
    assert job_release("grade", {"build": "demo", "split": "train"}) == "demo"
    assert job_release("mine_negatives", {"e44split": "test"}) == EVAL44B
    assert job_release("publish_44b", {}) == EVAL44B
    assert job_release("index_bm25", {"collection": "papers44b"}) is None


def test_the_last_lines_say_what_was_published_where_and_what_was_kept_aside(tmp_path):
    records = {"new": {"version": "v1", "package": "results/a", "before": None, "set_aside": None},
               "again": {"version": "v1", "package": "results/a", "before": "v1", "set_aside": None},
               "swap": {"version": "v2", "package": "results/a", "before": "v1", "set_aside": "results/a@v1"}}
    for name, record in records.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(record))
    assert publication_lines([("build demo", tmp_path / "new.json"), ("44b Eval", tmp_path / "again.json"),
                              ("build demo", tmp_path / "swap.json")]) == [
        "build demo: published release v1 at results/a.",
        "44b Eval: published release v1 at results/a again, the content its ledger records.",
        "build demo: published release v2 at results/a; release v1, published there before, is kept at results/a@v1."]


def test_the_demo_build_and_its_release_agree():
    assert doubting_release("demo", demo_build()).version_key == "builds.demo.version"
