"""config.yaml is validated against the schemas at start, as rules/common.smk does; defaults fill in."""

import copy
import re
from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

REPO = Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
SECTIONS = re.search(r"CONFIG_SECTIONS = (\[.*?\])", (REPO / "rules/common.smk").read_text()).group(1)
SECTIONS = yaml.safe_load(SECTIONS)


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
