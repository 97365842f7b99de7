"""config.yaml is validated against the schemas at start, as rules/common.smk does; defaults fill in."""

import copy
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from irdata.config_check import CONFIG_SECTIONS, ConfigError, check_config, files_by_precedence

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
SECTIONS = CONFIG_SECTIONS


def validate_like_workflow(config):
    validate(config, str(SCHEMAS / "config.schema.yaml"))
    for section in SECTIONS:
        validate(config[section], str(SCHEMAS / f"{section}.schema.yaml"))


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
    validate_like_workflow(config)
    assert config["doubting"]["shards"] == {"train": 500, "dev": 16}
    assert config["queries"] == "sample"


@pytest.mark.parametrize("edit, words", [
    (lambda c: c["doubting"].update(shardz=3), "'shardz' was unexpected"),
    (lambda c: c["doubting"]["shards"].update(train="a"), "'a' is not of type 'integer'"),
    (lambda c: c["doubting"].pop("collection"), "'collection' is a required property"),
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
    (lambda c: c["doubting"].pop("collection"), "doubting: 'collection' is required here"),
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
