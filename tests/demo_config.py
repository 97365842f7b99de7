"""The demo's config as the workflow reads it (rules/common.smk): its sections and each named build's whole
config with the defaults filled in (irdata/builds.py)."""

from __future__ import annotations

from pathlib import Path

import yaml
from snakemake.utils import validate

from irdata.builds import validated_builds
from irdata.config_check import CONFIG_SECTIONS

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "schemas"


def workflow_builds(config: dict) -> dict[str, dict]:
    """`config`'s sections validated in place and each build's whole config, as the workflow fills them."""
    validate(config, str(SCHEMAS / "config.schema.yaml"))
    for section in CONFIG_SECTIONS:
        if section != "doubting":  # the builds' shared defaults: validated in each build
            validate(config[section], str(SCHEMAS / f"{section}.schema.yaml"))
    return validated_builds(config, SCHEMAS)


def demo_build() -> dict:
    """The demo build's whole config (config.yaml's `builds.demo`), defaults filled in."""
    return workflow_builds(yaml.safe_load((REPO / "config.yaml").read_text()))["demo"]
