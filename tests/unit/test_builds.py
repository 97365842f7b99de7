"""Named Doubting builds (irdata/builds.py) and frozen versions at planning (irdata/frozen.py)."""

import json

import pytest
import yaml

from code_edits import code_tree
from demo_config import REPO, demo_build, workflow_builds
from irdata.build_grading import grading_mistakes
from irdata.builds import BuildError, declared_builds, deep_merge, name_clashes, name_defaults
from irdata.config_check import build_key_path
from irdata.doubting.release_code import release_code
from irdata.doubting.stages import config_used
from irdata.frozen import doubting_release, next_version, release_notices, release_problems, release_stop
from irdata.ledger import record_ledger
from irdata.provenance import sha256_file
from irdata.stage import canonical


def test_overrides_merge_key_by_key_over_the_shared_defaults():
    assert deep_merge({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 5}}) == {"a": {"b": 5, "c": 2}, "d": 3}


@pytest.mark.parametrize("builds, words", [
    ({"a b": {}}, "a build's name is letters"), ({"-x": {}}, "a build's name is letters"),
    ({"papers44b": {}}, "names a collection"), ({"x": 3}, "a mapping of doubting keys"),
    ({"x": None}, "no Doubting build"),
])
def test_bad_build_names_are_refused_naming_the_build(builds, words):
    with pytest.raises(BuildError, match=words):
        declared_builds({"builds": builds})


def test_names_name_a_build_and_the_beir_example_names_its_own_release():
    assert name_defaults("scifact")["package_dir"] == "results/scifact"
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    builds = workflow_builds(deep_merge(config, yaml.safe_load((REPO / "config/beir-example.yaml").read_text())))
    assert list(builds) == ["demo", "beir-example"]
    demo, beir = builds["demo"]["doubting"], builds["beir-example"]["doubting"]
    assert demo == demo_build()["doubting"]  # adding a build changes nothing of the demo's
    for key in ("title", "package_dir", "repo_id", "release_ledger", "version"):
        assert beir[key] != demo[key], key
    assert beir["audit"]["qrels"] is None and builds["beir-example"]["annotation"]["grading"]["dev"] == "query_only"
    assert builds["demo"]["annotation"]["grading"]["dev"] != "query_only"


BEIR_BUILD = {"version": "v1", "source": {"format": "beir", "folder": "resources/beir-example"}}


def with_build(over: dict, **sections) -> dict:
    config = yaml.safe_load((REPO / "config.yaml").read_text())
    config["builds"]["mine"] = over
    return {**config, **sections}


def test_a_beir_build_grades_its_dev_split_query_only_unless_it_sets_its_own_mode():
    builds = workflow_builds(with_build(BEIR_BUILD))
    assert builds["mine"]["annotation"]["grading"]["dev"] == "query_only"
    assert builds["demo"]["annotation"]["grading"]["dev"] == "answer_hinted"  # the shared default, with answers
    assert grading_mistakes(builds["mine"]) == [] and grading_mistakes(builds["demo"]) == []
    # the shared key set to answer_hinted is for the builds with answers: it reaches no BEIR build
    shared = workflow_builds(with_build(BEIR_BUILD, annotation={"grading": {"dev": "answer_hinted"}}))
    assert shared["mine"]["annotation"]["grading"]["dev"] == "query_only"


def test_a_mode_no_job_could_run_names_the_key_that_sets_it():
    config = with_build({**BEIR_BUILD, "annotation": {"grading": {"dev": "answer_hinted"}}})
    [mistake] = grading_mistakes(workflow_builds(config)["mine"])
    assert mistake.key == "builds.mine.annotation.grading.dev"
    assert mistake.problem == ("mode 'answer_hinted' needs reference answers, which only the dev split of MS "
                               "MARCO-format inputs has; leave it out (it defaults to query_only)")
    # a train mode set for every build: the shared key is the one to fix
    config = with_build(BEIR_BUILD, annotation={"grading": {"train": "answer_hinted"}})
    [mistake] = grading_mistakes(workflow_builds(config)["mine"])
    assert build_key_path(config, mistake.key.split(".")) == ["annotation", "grading", "train"]
    assert mistake.problem.endswith("; set it to query_only")


def test_a_build_may_not_take_a_rules_or_targets_name():
    assert name_clashes(["grade", "mine"], ["grade", "all", "shard_queries_demo"]) == [
        (["builds", "grade"], "'grade' is the name of a rule or target of the workflow (`snakemake grade` would name "
                              "both); choose another name")]


def record_built(tmp_path, config, code=None) -> None:
    """The build's version recorded in a ledger of the test's own, as `package` records a published one."""
    config["doubting"]["release_ledger"] = str(tmp_path / "ledger.json")
    record_ledger(config["doubting"]["release_ledger"], config["doubting"]["version"], "ab" * 32, "results/x",
                  canonical(config_used(config)), code)


def frozen(config, root=REPO):
    return release_problems([doubting_release("demo", config)], root)


def test_a_version_recorded_with_another_config_is_named_in_one_line_per_build(tmp_path):
    demo = demo_build()
    record_built(tmp_path, demo)
    assert frozen(demo) == []
    changed = json.loads(json.dumps(demo))
    changed["retrieval"]["dense"]["ef_search"] = 200
    problems = frozen(changed)
    assert [p.problem for p in problems] == ["retrieval.dense.ef_search"]
    assert release_notices(problems) == [
        "build demo: version v0.1-demo is frozen and retrieval.dense.ef_search changed; a real run that builds it "
        "would stop; set builds.demo.version (e.g. --config 'builds={demo: {version: v0.1-demo-2}}', or an overlay "
        "line)"]
    stop = release_stop(problems).splitlines()
    assert len(stop) == 3 and "build demo: version v0.1-demo" in stop[1] and "retrieval.dense.ef_search" in stop[1]
    assert stop[2] == ("    Set a new version: add --config 'builds={demo: {version: v0.1-demo-2}}' to the command, or "
                       "`builds: {demo: {version: ...}}` to your overlay.")


def test_a_module_or_prompt_change_is_caught_at_planning(tmp_path):
    root = code_tree(tmp_path / "wf")
    prompt, module = root / "prompts/grade_query_only.txt", root / "workflow_scripts/irdata/tsv.py"
    demo = demo_build()
    record_built(tmp_path, demo, release_code(root, ["prompts/grade_query_only.txt"]))
    assert frozen(demo, root) == []
    original = prompt.read_text()
    prompt.write_text(original + "Grade it well.\n")
    assert [p.problem for p in frozen(demo, root)] == ["code: prompts/grade_query_only.txt"]
    prompt.write_text(original)
    # a comment changes nothing of the code's meaning; a constant does
    module.write_text(module.read_text() + "# a comment\n")
    assert frozen(demo, root) == []
    module.write_text(module.read_text() + "EDITED = 1\n")
    assert [p.problem for p in frozen(demo, root)] == ["code: workflow_scripts/irdata/tsv.py"]


def test_a_version_recorded_before_code_identities_is_compared_byte_for_byte(tmp_path):
    """A ledger written before code identities records each code file's sha256: a comment then counts."""
    root = code_tree(tmp_path / "wf")
    files = ["prompts/grade_query_only.txt", "workflow_scripts/irdata/tsv.py"]
    demo = demo_build()
    record_built(tmp_path, demo, {rel: sha256_file(root / rel) for rel in files})
    assert frozen(demo, root) == []
    (root / files[1]).write_text((root / files[1]).read_text() + "# a comment\n")
    assert [p.problem for p in frozen(demo, root)] == ["code: workflow_scripts/irdata/tsv.py"]


def test_the_suggested_version_follows_the_frozen_one():
    assert next_version("v1") == "v2" and next_version("v0.1-demo") == "v0.1-demo-2" and next_version("v0.9") == "v0.10"


def test_the_suggested_version_is_none_the_ledger_records_or_a_folder_keeps(tmp_path):
    demo = demo_build()
    demo["doubting"]["package_dir"] = str(tmp_path / "results/demo")
    for version in ("v0.1-demo-2", "v0.1-demo-3"):
        record_ledger(tmp_path / "ledger.json", version, "ab" * 32, "results/x")
    (tmp_path / "results/demo@v0.1-demo-4").mkdir(parents=True)  # kept aside, its ledger entry lost
    record_built(tmp_path, demo)
    changed = json.loads(json.dumps(demo))
    changed["queries"] = "all"
    [problem] = frozen(changed)
    assert problem.fix == "--config 'builds={demo: {version: v0.1-demo-5}}'"
