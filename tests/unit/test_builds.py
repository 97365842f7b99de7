"""Named Doubting builds (irdata/builds.py) and frozen versions at planning (irdata/frozen.py)."""

import json

import pytest
import yaml

from code_edits import code_tree
from demo_config import REPO, demo_build, workflow_builds
from irdata.builds import BuildError, declared_builds, deep_merge, name_defaults
from irdata.doubting.manifest import record_ledger
from irdata.doubting.release_code import release_code
from irdata.doubting.stages import config_used
from irdata.frozen import frozen_builds, frozen_notices, frozen_stop, next_version
from irdata.provenance import sha256_file
from irdata.stage import canonical


def test_overrides_merge_key_by_key_over_the_shared_defaults():
    assert deep_merge({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 5}}) == {"a": {"b": 5, "c": 2}, "d": 3}


@pytest.mark.parametrize("builds, words", [
    ({"a b": {}}, "a build's name is letters"), ({"-x": {}}, "a build's name is letters"),
    ({"doubting": {}}, "names a target"), ({"x": 3}, "a mapping of doubting keys"), ({"x": None}, "no Doubting build"),
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


def record_built(tmp_path, config, code=None) -> None:
    """The build's version recorded in a ledger of the test's own, as `package` records a published one."""
    config["doubting"]["release_ledger"] = str(tmp_path / "ledger.json")
    record_ledger(config["doubting"]["release_ledger"], config["doubting"]["version"], "ab" * 32, "results/x",
                  canonical(config_used(config)), code)


def test_a_version_recorded_with_another_config_is_named_in_one_line_per_build(tmp_path):
    demo = demo_build()
    record_built(tmp_path, demo)
    assert frozen_builds({"demo": demo}, REPO) == []
    changed = json.loads(json.dumps(demo))
    changed["retrieval"]["dense"]["ef_search"] = 200
    frozen = frozen_builds({"demo": changed}, REPO)
    assert [b.keys for b in frozen] == [("retrieval.dense.ef_search",)]
    assert frozen_notices(frozen) == [
        "build demo: version v0.1-demo is frozen and retrieval.dense.ef_search changed; a real run that builds it "
        "would stop; set builds.demo.version (e.g. --config 'builds={demo: {version: v0.1-demo-2}}', or an overlay "
        "line)"]
    stop = frozen_stop(frozen).splitlines()
    assert len(stop) == 3 and "build demo: version v0.1-demo" in stop[1] and "retrieval.dense.ef_search" in stop[1]


def test_a_module_or_prompt_change_is_caught_at_planning(tmp_path):
    root = code_tree(tmp_path / "wf")
    prompt, module = root / "prompts/grade_query_only.txt", root / "workflow_scripts/irdata/tsv.py"
    demo = demo_build()
    record_built(tmp_path, demo, release_code(root, ["prompts/grade_query_only.txt"]))
    assert frozen_builds({"demo": demo}, root) == []
    original = prompt.read_text()
    prompt.write_text(original + "Grade it well.\n")
    assert [b.keys for b in frozen_builds({"demo": demo}, root)] == [("code: prompts/grade_query_only.txt",)]
    prompt.write_text(original)
    # a comment changes nothing of the code's meaning; a constant does
    module.write_text(module.read_text() + "# a comment\n")
    assert frozen_builds({"demo": demo}, root) == []
    module.write_text(module.read_text() + "EDITED = 1\n")
    assert [b.keys for b in frozen_builds({"demo": demo}, root)] == [("code: workflow_scripts/irdata/tsv.py",)]


def test_a_version_recorded_before_code_identities_is_compared_byte_for_byte(tmp_path):
    """A ledger written before code identities records each code file's sha256: a comment then counts."""
    root = code_tree(tmp_path / "wf")
    files = ["prompts/grade_query_only.txt", "workflow_scripts/irdata/tsv.py"]
    demo = demo_build()
    record_built(tmp_path, demo, {rel: sha256_file(root / rel) for rel in files})
    assert frozen_builds({"demo": demo}, root) == []
    (root / files[1]).write_text((root / files[1]).read_text() + "# a comment\n")
    assert [b.keys for b in frozen_builds({"demo": demo}, root)] == [("code: workflow_scripts/irdata/tsv.py",)]


def test_the_suggested_version_follows_the_frozen_one():
    assert next_version("v1") == "v2" and next_version("v0.1-demo") == "v0.1-demo-2" and next_version("v0.9") == "v0.10"
