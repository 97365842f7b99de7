"""What the downstream rules read (irdata/stage.py): the training set, training, encoding, evaluation and the
comparison. rules/downstream.smk only wires these."""

from __future__ import annotations

from ..layout import downstream_model_dir
from ..retrieval.stages import DENSE_INDEX_KEYS, search_settings
from ..stage import Stage, canonical

ARMS = ("release", "official")
MODELS = ("base", *ARMS)  # what is evaluated: the base model and the two trained ones
# what the evaluation's index reads of retrieval.dense: its kind by size, build and search parameters (the
# encoding is this stage's own: its model, not the workflow's)
INDEX_KEYS = (*(k for k in DENSE_INDEX_KEYS if k not in ("model", "normalize", "max_seq_length", "recall_queries")),
              "ef_search", "ivf_nprobe")
TRAIN_KEYS = ("seed", "threads", "device", "precision", "mini_batch_size", "gpus", "save_steps",
              "steps", "batch_queries", "learning_rate", "warmup_share", "scale",
              "max_length", "query_chars", "document_chars", "record_timing")


def downstream(config: dict) -> dict:
    return config["doubting"]["downstream"]


def enabled(config: dict) -> bool:
    return downstream(config)["enabled"]


def eval_sets(config: dict) -> list[dict]:
    """The BEIR-format sets of the config, each with its split (default test)."""
    return [{"name": s["name"], "path": s["path"], "split": s.get("split", "test")}
            for s in downstream(config)["eval_sets"]]


def collections(config: dict) -> list[str]:
    """The collections evaluated on: the build's own, under the build's name (its strict and official dev
    qrels), and each BEIR set."""
    return [config["build"], *(f"beir_{s['name']}" for s in eval_sets(config))]


def training_set_settings(config: dict) -> dict:
    ds = downstream(config)
    return {"positives": ds["positives"], "negative_depth": ds["negative_depth"],
            "search": search_settings(config["retrieval"])}


def train_settings(config: dict, dsbase: str) -> dict:
    ds = downstream(config)
    return {**{k: ds[k] for k in TRAIN_KEYS}, "base_model": dsbase}


def encode_settings(config: dict, dsbase: str, dsmodel: str) -> dict:
    """What irdata.retrieval.dense.encode_passages reads, with the model to evaluate."""
    ds = downstream(config)
    return {"model": dsbase if dsmodel == "base" else downstream_model_dir(dsbase, dsmodel, config["build"]),
            "normalize": True, "max_seq_length": ds["max_length"], "batch_size": ds["batch_size"],
            "device": ds["device"] or "cpu", "threads": ds["threads"]}


def evaluate_settings(config: dict, dsbase: str, dsmodel: str, dscoll: str) -> dict:
    ds = downstream(config)
    sets = {f"beir_{s['name']}": s for s in eval_sets(config)}
    return {"encode": encode_settings(config, dsbase, dsmodel), "query_chars": ds["query_chars"],
            "index": {k: config["retrieval"]["dense"][k] for k in INDEX_KEYS},
            "beir": sets.get(dscoll)}


def compare_settings(config: dict) -> dict:
    ds = downstream(config)
    return {"collection": config["build"], "seed": ds["seed"], "resamples": ds["resamples"],
            "base_models": ds["base_models"],
            "positives": ds["positives"], "eval_sets": eval_sets(config), "train": train_settings(config, "")}


def _stage(name: str, settings) -> Stage:
    return Stage(name=name, settings=settings)


STAGES = (
    _stage("downstream_training_set", lambda config, **_: canonical(training_set_settings(config))),
    _stage("downstream_train", lambda config, dsbase, **_: canonical(train_settings(config, dsbase))),
    _stage("downstream_encode",
           lambda config, dsbase, dsmodel, **_: canonical(encode_settings(config, dsbase, dsmodel))),
    _stage("downstream_evaluate",
           lambda config, dsbase, dsmodel, dscoll, **_: canonical(evaluate_settings(config, dsbase, dsmodel, dscoll))),
    _stage("downstream_compare", lambda config, **_: canonical(compare_settings(config))),
    _stage("downstream_beir_inputs", lambda config, dscoll, **_: canonical(
        {s["name"]: s for s in eval_sets(config)}[dscoll.removeprefix("beir_")])),
    # its table and figure are titled with the build's title (irdata.report.downstream_report)
    _stage("report_downstream", lambda config, **_: canonical({"title": config["doubting"]["title"]})),
)
