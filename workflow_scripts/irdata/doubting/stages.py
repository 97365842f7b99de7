"""What the Doubting MS MARCO release rules read (irdata/stage.py): assemble, stage_release, package."""

from __future__ import annotations

from ..beir_inputs import source_input_paths
from ..llm.settings import CONNECTION_SETTINGS
from ..stage import Stage, canonical
from ..workdir import WORK
from .manifest import planned_version_conflict


def config_used(config: dict) -> dict:
    """The config the release depends on, defaults filled in, as MANIFEST.json records it: without the
    LLM connection settings (servers, timeouts, concurrency), which change no output."""
    llm = config["llm"]
    return {**{key: config[key] for key in ("queries", "doubting", "annotation", "retrieval")},
            "llm": {k: v for k, v in llm.items() if k not in CONNECTION_SETTINGS and k != "stages"}
            | {"stages": {name: {k: v for k, v in over.items() if k not in CONNECTION_SETTINGS}
                          for name, over in llm["stages"].items()}}}


def frozen_version_conflict(config: dict) -> str | None:
    """Why the config's doubting.version cannot be built with this config (irdata.doubting.manifest
    .planned_version_conflict, against the release ledger), or None: checked when the workflow is planned."""
    doubting = config["doubting"]
    return planned_version_conflict(doubting["release_ledger"], doubting["version"], canonical(config_used(config)))


def batch_descriptions(config: dict) -> dict:
    """Each split's acquisition batch names -> their descriptions (the dataset card's)."""
    batches = config["doubting"]["acquisition_batches"]
    return {split: {batches[split]["default"]: batches[split].get("default_description", ""),
                    **{b["name"]: b.get("description", "") for b in batches[split].get("batches", [])}}
            for split in ("train", "dev")}


def _release_settings(config: dict) -> dict:
    doubting = config["doubting"]
    return {"version": doubting["version"], "repo_id": doubting["repo_id"], "config": config_used(config),
            "batch_descriptions": batch_descriptions(config), "ledger": doubting["release_ledger"],
            "package_dir": doubting["package_dir"], "raw_inputs": source_input_paths(config)}


STAGES = (
    Stage(name="assemble", settings=lambda config, **_: canonical({
              "acquisition_batches": config["doubting"]["acquisition_batches"],
              "grading": config["annotation"]["grading"], "shards": config["doubting"]["shards"], "work": WORK})),
    Stage(name="stage_release", settings=lambda config, **_: canonical(
        _release_settings(config))),
    Stage(name="package", settings=lambda config, **_: canonical({"ledger": config["doubting"]["release_ledger"],
                                                  "package_dir": config["doubting"]["package_dir"]})),
)
