"""config.yaml is validated against the schemas at start, as rules/common.smk does; defaults fill in."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from irdata.builds import validated_builds
from irdata.config_check import CONFIG_SECTIONS, check_config, yaml_mistake
from irdata.config_mistakes import ConfigError, files_by_precedence
from irdata.demo_identity import check_own_identity

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
SECTIONS = CONFIG_SECTIONS


def validate_like_workflow(config):
    """The config's sections and each build's whole config, defaults filled in (rules/common.smk)."""
    validate(config, str(SCHEMAS / "config.schema.yaml"))
    for section in SECTIONS:
        if section != "doubting":  # the builds' shared defaults: validated in each build
            validate(config[section], str(SCHEMAS / f"{section}.schema.yaml"))
    return validated_builds(config, SCHEMAS)


def demo_config():
    return yaml.safe_load((REPO / "config.yaml").read_text())


def test_every_section_has_a_schema_and_a_top_level_key():
    top = yaml.safe_load((SCHEMAS / "config.schema.yaml").read_text())["properties"]
    for section in SECTIONS:
        assert section in top and (SCHEMAS / f"{section}.schema.yaml").is_file()


def test_demo_config_is_valid_and_defaults_fill():
    config = demo_config()
    del config["doubting"]["shards"]
    del config["queries"]
    builds = validate_like_workflow(config)
    assert builds["demo"]["doubting"]["shards"] == {"train": 500, "dev": 16}
    assert config["queries"] == "sample"


@pytest.mark.parametrize("edit, words", [
    (lambda c: c["doubting"].update(shardz=3), "'shardz' was unexpected"),
    (lambda c: c["doubting"]["shards"].update(train="a"), "'a' is not of type 'integer'"),
    (lambda c: c["builds"]["demo"].pop("collection"), "'collection' is a required property"),
    (lambda c: c.update(queries="everything"), "'everything' is not one of ['sample', 'all']"),
    (lambda c: c.update(doubtin={}), "'doubtin' was unexpected"),
])
def test_wrong_keys_and_types_fail(edit, words):
    config = copy.deepcopy(demo_config())
    edit(config)
    with pytest.raises(Exception) as info:
        validate_like_workflow(config)
    assert words in str(info.value)


def test_readme_config_reference_matches_schemas():
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, str(REPO / "tools/config_reference.py"), "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("edit, line", [
    (lambda c: c["doubting"].update(shard=3), "doubting.shard: unknown key; did you mean `shards`?"),
    (lambda c: c["doubting"]["shards"].update(train="a"), "doubting.shards.train: 'a' is not of type 'integer'"),
    (lambda c: c["builds"]["demo"].pop("collection"), "builds.demo: 'collection' is required here"),
    (lambda c: c["builds"]["demo"].update(versio="v1"), "builds.demo.versio: unknown key; did you mean `version`?"),
    (lambda c: c["builds"].update({"my data": {}}), "builds.my data: a build's name is letters, digits"),
    (lambda c: c["builds"].update(papers44b={}), "builds.papers44b: 'papers44b' names a collection of the workflow"),
    (lambda c: c["builds"].update(demo=None), "builds: no Doubting build is declared"),
    (lambda c: c.update(queries="everything"), "queries: 'everything' is not one of 'sample', 'all'"),
    (lambda c: c.update(doubtin={}), "doubtin: unknown key; did you mean `doubting`?"),
    (lambda c: c.setdefault("llm", {}).update(bakend="openai"), "llm.bakend: unknown key; did you mean `backend`?"),
])
def test_a_config_mistake_is_one_line_naming_the_key_and_what_is_expected(edit, line):
    config = copy.deepcopy(demo_config())
    edit(config)
    with pytest.raises(ConfigError) as info:
        check_config(config, SCHEMAS, [REPO / "config.yaml"])
    message = str(info.value)
    assert line in message
    assert len(message.splitlines()) == 2  # the heading and the one mistake: no schema, no config dump


def test_a_mistake_names_the_file_that_set_it_or_the_command_line(tmp_path):
    overlay = tmp_path / "mine.yaml"
    overlay.write_text("doubting:\n  shard: 3\n")
    config = copy.deepcopy(demo_config())
    config["doubting"]["shard"] = 3
    files = files_by_precedence([overlay, REPO / "config.yaml"], [overlay])
    assert files == [REPO / "config.yaml", overlay]
    with pytest.raises(ConfigError, match=f"in {overlay}"):
        check_config(config, SCHEMAS, files)
    config = copy.deepcopy(demo_config())
    config["queries"] = "everything"
    with pytest.raises(ConfigError, match=r"\(in --config\)"):
        check_config(config, SCHEMAS, files, {"queries": "everything"})


@pytest.mark.parametrize("name", ["config.yaml", "config/production.yaml"])
def test_the_shipped_configs_pass_the_check(name):
    config = demo_config()
    overlay = yaml.safe_load((REPO / name).read_text())
    for key, value in overlay.items():  # an overlay merges into the demo's sections, as Snakemake does
        if isinstance(value, dict):
            config.setdefault(key, {}).update(value)
        else:
            config[key] = value
    check_config(config, SCHEMAS, [REPO / "config.yaml"])


def merged(*layers: dict) -> dict:
    """Config layers merged key by key, as Snakemake merges config files."""
    out: dict = {}
    for layer in layers:
        for key, value in layer.items():
            out[key] = merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) \
                else copy.deepcopy(value)
    return out


def own_identity(config, files, overrides=None):
    check_own_identity(config, REPO / "config.yaml", files, overrides, SCHEMAS)


def test_other_inputs_with_the_demos_identity_are_refused_naming_each_key(tmp_path):
    overlay = tmp_path / "mine.yaml"
    overlay.write_text("builds:\n  demo:\n    collection: data/mine.tsv\n    version: v1\n")
    config = merged(demo_config(), yaml.safe_load(overlay.read_text()))
    with pytest.raises(ConfigError) as info:
        own_identity(config, [REPO / "config.yaml", overlay])
    lines = str(info.value).splitlines()
    assert lines[0].startswith("These inputs are not the demo's (builds.demo.collection), but these keys still hold "
                               "the demo's values")
    assert lines[1:] == [
        "  builds.demo.repo_id: 'local/doubting-ms-marco-demo' (config.yaml)",
        "  builds.demo.corpus_description: \"the workflow's own small demo corpu... (config.yaml)",
        '  builds.demo.license_note: "The demo corpus (resources/demo/) a... (config.yaml)',
        "  builds.demo.acquisition_batches.train.default: 'demo-train' (its name's default)",
        "  builds.demo.acquisition_batches.dev.default: 'demo-dev' (its name's default)",
    ]


# a build's own MS MARCO-format files (the demo's, named as a user's build names them)
FILES = {key: f"resources/demo/{name}" for key, name in (
    ("collection", "collection.tsv"), ("train_queries", "queries.train.tsv"), ("train_qrels", "qrels.train.tsv"),
    ("dev_queries", "queries.dev.small.tsv"), ("dev_qrels", "qrels.dev.small.tsv"),
    ("dev_answers", "answers.dev.small.jsonl"))} | {"heldout_queries": ["resources/demo/queries.test.tsv"]}


def test_a_build_of_its_own_name_names_its_release_from_its_name(tmp_path):
    overlay = {"builds": {"mine": {"version": "v1", **FILES, "collection": "data/mine.tsv"}}}
    config = merged(demo_config(), overlay)
    own_identity(config, [REPO / "config.yaml"], overlay)  # nothing of the demo's carries into it
    mine = validate_like_workflow(config)["mine"]["doubting"]
    assert {k: mine[k] for k in ("title", "package_dir", "repo_id", "release_ledger")} == {
        "title": "Doubting mine", "package_dir": "results/mine", "repo_id": "local/mine",
        "release_ledger": "work/doubting/mine-release-ledger.json"}
    assert mine["acquisition_batches"]["train"]["default"] == "mine-train"
    assert mine["audit"]["qrels"] is None  # the demo's audit files are the demo's
    assert mine["train_sample"] == demo_config()["doubting"]["train_sample"]  # the shared defaults are shared


def test_a_build_set_to_null_is_left_out_and_a_build_may_override_annotation():
    config = merged(demo_config(), {"builds": {"demo": None, "b": {"version": "v1", **FILES,
                                                                   "annotation": {"grading": {"dev": "query_only"}}}}})
    check_config(config, SCHEMAS, [REPO / "config.yaml"])
    builds = validate_like_workflow(config)
    assert list(builds) == ["b"]
    assert builds["b"]["annotation"]["grading"]["dev"] == "query_only"
    assert builds["b"]["build"] == "b"


def test_a_mistake_in_a_build_names_the_build_and_the_shared_default_its_own_key():
    config = merged(demo_config(), {"doubting": {"shards": {"train": "a"}},
                                    "builds": {"b": {"version": "1", **FILES}}})
    with pytest.raises(ConfigError) as info:
        check_config(config, SCHEMAS, [REPO / "config.yaml"])
    lines = str(info.value).splitlines()[1:]
    assert lines[0].startswith("  doubting.shards.train: 'a' is not of type 'integer'")
    assert lines[1].startswith("  builds.b.version: '1' does not match")
    assert len(lines) == 2  # the shared default's mistake once, not once per build


def test_the_demos_inputs_or_an_overlay_that_names_its_release_pass(tmp_path):
    own_identity(demo_config(), [REPO / "config.yaml"])
    # the demo's own files, named another way: still the demo
    same = merged(demo_config(), {"builds": {"demo": {"collection": "./resources/demo/../demo/collection.tsv"}}})
    own_identity(same, [REPO / "config.yaml"])
    # every key set by the overlay or --config, to any value (the demo's version too)
    keys = {"version": "v0.1-demo", "repo_id": "me/x", "corpus_description": "mine", "license_note": "terms",
            "acquisition_batches": {"train": {"default": "a"}, "dev": {"default": "b"}}}
    overlay = tmp_path / "mine.yaml"
    overlay.write_text(yaml.safe_dump({"builds": {"demo": {"collection": "data/mine.tsv", **keys}}}))
    config = merged(demo_config(), yaml.safe_load(overlay.read_text()))
    own_identity(config, [REPO / "config.yaml", overlay])
    overlay.write_text(yaml.safe_dump({"builds": {"demo": {"collection": "data/mine.tsv",
                                                           **{k: v for k, v in keys.items() if k != "version"}}}}))
    own_identity(config, [REPO / "config.yaml", overlay], {"builds": {"demo": {"version": "v2"}}})


def test_the_production_overlay_names_its_own_release():
    production = REPO / "config/production.yaml"
    own_identity(merged(demo_config(), yaml.safe_load(production.read_text())), [REPO / "config.yaml", production])


def test_other_44b_inputs_need_the_44b_identity(tmp_path):
    overlay = tmp_path / "iclr.yaml"
    overlay.write_text("eval44b:\n  papers: p.jsonl\n  reviews: r.jsonl\n")
    config = merged(demo_config(), yaml.safe_load(overlay.read_text()))
    with pytest.raises(ConfigError) as info:
        own_identity(config, [REPO / "config.yaml", overlay])
    keys = [line.split(":")[0].strip() for line in str(info.value).splitlines()[1:]]
    assert keys == ["eval44b.version", "eval44b.repo_id", "eval44b.ids_refer_to", "eval44b.corpus_description",
                    "eval44b.license_note"]


def test_a_beir_folder_is_other_data_and_its_example_overlay_names_its_release(tmp_path):
    overlay = tmp_path / "scifact.yaml"
    overlay.write_text("builds:\n  demo:\n    source: {format: beir, folder: data/scifact, train_split: train, "
                       "dev_split: test}\n    version: v1\n")
    with pytest.raises(ConfigError) as info:
        own_identity(merged(demo_config(), yaml.safe_load(overlay.read_text())), [REPO / "config.yaml", overlay])
    assert "(builds.demo.source.folder)" in str(info.value).splitlines()[0]
    example = REPO / "config/beir-example.yaml"
    own_identity(merged(demo_config(), yaml.safe_load(example.read_text())), [REPO / "config.yaml", example])


@pytest.mark.parametrize("text, where", [
    ("builds:\n  demo:\n    version: v2\n   title: x\n", "line 4, column 4: not valid YAML: expected <block end>"),
    ("a:\n\tb: 1\n", "line 2, column 1: not valid YAML: found character '\\t' that cannot start any token; indent "
                     "with spaces: YAML takes no tabs"),
])
def test_a_yaml_mistake_names_the_file_line_and_column(tmp_path, text, where):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    assert yaml_mistake(path).startswith(f"{path}, {where}")
    path.write_text("a: 1\n")
    assert yaml_mistake(path) is None
