"""What the Doubting MS MARCO rules read (irdata/stage.py) but the LLM stages (irdata/annotate/stages.py): the
input checks, the query dedup, the label audit and the human audit, and the release rules."""

from __future__ import annotations

from dataclasses import asdict

from ..dedup import sample_settings
from ..layout import WORK
from ..llm.settings import CONNECTION_SETTINGS
from ..retrieval.stages import search_settings
from ..sources.registry import SOURCES, card_words, source_of
from ..stage import Stage, canonical
from . import audit_ranking, baseline_run


def config_used(config: dict) -> dict:
    """The config the release depends on, defaults filled in, as MANIFEST.json records it: without the
    LLM connection settings (servers, timeouts, concurrency), which change no output."""
    llm = config["llm"]
    return {**{key: config[key] for key in ("queries", "doubting", "annotation", "retrieval")},
            "llm": {k: v for k, v in llm.items() if k not in CONNECTION_SETTINGS and k != "stages"}
            | {"stages": {name: {k: v for k, v in over.items() if k not in CONNECTION_SETTINGS}
                          for name, over in llm["stages"].items()}}}


def version_key(config: dict) -> str:
    """The config key that sets the build's release version (its Doubting section under its name in `builds`)."""
    return f"builds.{config['build']}.version"


def batch_descriptions(config: dict) -> dict:
    """Each split's acquisition batch names -> their descriptions (the dataset card's)."""
    batches = config["doubting"]["acquisition_batches"]
    return {split: {batches[split]["default"]: batches[split].get("default_description", ""),
                    **{b["name"]: b.get("description", "") for b in batches[split].get("batches", [])}}
            for split in ("train", "dev")}


def report_settings(config: dict) -> dict:
    """What the report of a build labels its figures and tables with (irdata.report.doubting_report): its
    title, each split's grading mode (as assemble writes it in the judgments' `grading` column), its package
    folder and, where its source's splits are not its own train and dev (a BEIR folder's qrels splits), the folder
    and the qrels split each split's queries come from (irdata/sources/). The report's captions read them too
    (report/doubting_*.rst)."""
    doubting = config["doubting"]
    return {"title": doubting["title"], "package_dir": doubting["package_dir"],
            "grading": {split: config["annotation"]["grading"][split] for split in ("train", "dev")},
            "beir": source_of(doubting).report_splits(doubting)}


def _release_settings(config: dict) -> dict:
    doubting = config["doubting"]
    return {"version": doubting["version"], "version_key": version_key(config), "repo_id": doubting["repo_id"],
            "config": config_used(config), "batch_descriptions": batch_descriptions(config),
            "ledger": doubting["release_ledger"], "raw_inputs": source_of(doubting).raw_inputs(doubting),
            "input_check": source_of(doubting).rule, "card_words": asdict(card_words(doubting))}


STAGES = (
    # One input check per source (irdata/sources/): its raw inputs are in its settings, so that naming other inputs
    # reruns it, and stage_release checks them against the check's inputs.json. The held-out query files are there
    # with the keys that name them (irdata/heldout.py): the keys name each held-out query's source in
    # ids/train_excluded.tsv. A build of another source runs it never: its settings then hold the format alone.
    *(Stage(name=source.rule, settings=lambda config, source=source, **_: canonical(source.settings(config)))
      for source in SOURCES.values()),
    Stage(name="dedup_train_queries", settings=lambda config, **_: sample_settings(config)),
    Stage(name="check_acquisition_batches", settings=lambda config, **_: canonical({
              "acquisition_batches": config["doubting"]["acquisition_batches"]})),
    Stage(
        name="release_gate",
        settings=lambda config, **_: canonical({"limits": config["annotation"]["failure_limits"],
                                                "accept": config["accept_llm_failures"]}),
    ),
    Stage(
        name="bm25_dev_run",
        settings=lambda config, **_: canonical({"bm25": config["retrieval"]["bm25"], "depth": baseline_run.DEPTH,
                                                "run_tag": baseline_run.RUN_TAG}),
    ),
    Stage(
        name="audit_runs",
        settings=lambda config, **_: canonical({"search": search_settings(config["retrieval"]),
                                                "depth": audit_ranking.DEPTH,
                                                "seed": config["doubting"]["audit"]["seed"]}),
    ),
    Stage(
        name="audit_ranking",
        settings=lambda config, **_: canonical({"runs": config["doubting"]["audit"]["runs"],
                                                "min_rel": audit_ranking.MIN_REL}),
    ),
    Stage(
        name="human_audit_sheet",
        settings=lambda config, **_: canonical({**{key: config["doubting"]["audit"]["human"][key]
                                                   for key in ("sample_queries", "split")},
                                                "seed": config["doubting"]["audit"]["seed"]}),
    ),
    Stage(
        name="human_audit_results",
        settings=lambda config, **_: canonical({"sheets": config["doubting"]["audit"]["human"]["sheets"]}),
    ),
    Stage(name="assemble", settings=lambda config, **_: canonical({
              "acquisition_batches": config["doubting"]["acquisition_batches"],
              "grading": config["annotation"]["grading"], "shards": config["doubting"]["shards"], "work": WORK})),
    Stage(name="stage_release", settings=lambda config, **_: canonical(
        _release_settings(config))),
    Stage(name="package", settings=lambda config, **_: canonical({"ledger": config["doubting"]["release_ledger"],
                                                                   "package_dir": config["doubting"]["package_dir"],
                                                                   "version_key": version_key(config)})),
    Stage(name="report_doubting", settings=lambda config, **_: canonical(report_settings(config))),
)
