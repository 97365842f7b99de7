"""What rules/downstream.smk wires: per evaluation collection its store, BEIR inputs, encoding shards and qrels
sets; per model its files; the training and evaluation jobs the comparison reads. Plain functions of the config,
so that the rules only name them."""

from __future__ import annotations

from pathlib import Path

from ..doubting.release_files import TREC_STRICT
from ..layout import downstream_beir, downstream_encoded, downstream_model_dir
from ..layout import training_report as _training_report
from ..shards import size_shard_count
from ..sources.beir import beir_paths
from ..training.models import MODEL_FILES
from .compare import OWN_SETS
from .stages import ARMS, MODELS, collections, eval_sets


def beir_sets(config: dict) -> dict[str, dict]:
    """The BEIR-format sets by their collection name `beir_<name>`."""
    return {f"beir_{s['name']}": s for s in eval_sets(config)}


def beir_files(config: dict, dscoll: str) -> dict[str, str]:
    """A BEIR-format set's corpus, queries and qrels of its split, as downstream_beir_inputs reads them (the layout
    of a BEIR folder: irdata.sources.beir.beir_paths)."""
    beir = beir_sets(config)[dscoll]
    return {name: str(path) for name, path in beir_paths(beir["path"], beir["split"]).items()}


def store(dscoll: str, build: str, build_store: str) -> str:
    """The passage store a collection is encoded from: the build's own (the collection named as the build), or
    a BEIR set's as downstream_beir_inputs writes it."""
    return build_store if dscoll == build else downstream_beir(dscoll, "passages.arrow")


def shard_count(config: dict, dscoll: str, build_source: str) -> int:
    """Encoding jobs of a collection, from its source file's size as encode_passages sizes them."""
    source = build_source if dscoll == config["build"] else Path(beir_sets(config)[dscoll]["path"]) / "corpus.jsonl"
    return size_shard_count(source, config["retrieval"]["dense"]["encode_shard_mb"])


def model_files(dsbase: str, arm: str) -> list[str]:
    """The files downstream_train writes for (base, arm): a bi-encoder's."""
    return [f"{downstream_model_dir(dsbase, arm)}/{name}" for name in MODEL_FILES["bi_encoder"]]


def training_report(dsbase: str, arm: str) -> str:
    return _training_report(downstream_model_dir(dsbase, arm))


def model_inputs(dsbase: str, dsmodel: str) -> dict:
    """A trained model's files and its training report; the base model is no file of the workflow."""
    if dsmodel == "base":
        return {}
    return {"model": model_files(dsbase, dsmodel), "training": training_report(dsbase, dsmodel)}


def encoded(dsbase: str, dsmodel: str, dscoll: str, shards: int, ext: str) -> list[str]:
    """A model's encoded shards of a collection (`ext`: npy or json)."""
    return [downstream_encoded(dsbase, dsmodel, dscoll, i, ext) for i in range(shards)]


def qrels_sets(config: dict, dscoll: str, assembled: str, official_qrels: str) -> dict[str, tuple[str, int]]:
    """The qrels files evaluated on a collection, by set name, with the lowest relevant grade of each: on the
    build's own collection the release's strict dev qrels (in the `assembled` folder) and the official ones, else
    the BEIR set's."""
    if dscoll == config["build"]:
        return {OWN_SETS[0]: (f"{assembled}/{TREC_STRICT}", 2), OWN_SETS[1]: (official_qrels, 1)}
    return {beir_sets(config)[dscoll]["name"]: (downstream_beir(dscoll, "qrels.trec"), 1)}


def qrels_grades(sets: dict[str, tuple[str, int]]) -> dict[str, int]:
    """The lowest relevant grade of each qrels set (downstream_evaluate's `qrels_sets` param)."""
    return {name: grade for name, (_, grade) in sets.items()}


def evaluate_inputs(config: dict, dsbase: str, dsmodel: str, dscoll: str, dev_queries: str,
                    sets: dict[str, tuple[str, int]]) -> dict:
    """downstream_evaluate's named inputs: the collection's queries, each qrels set, the model's files."""
    queries = dev_queries if dscoll == config["build"] else downstream_beir(dscoll, "queries.tsv")
    return {"queries": queries, **{name: path for name, (path, _) in sets.items()}, **model_inputs(dsbase, dsmodel)}


def evaluations(config: dict) -> list[tuple[str, str, str]]:
    """Every (base, model, collection) evaluated."""
    bases = config["doubting"]["downstream"]["base_models"]
    return [(b, m, c) for b in bases for m in MODELS for c in collections(config)]


def trainings(config: dict) -> list[tuple[str, str]]:
    """Every (base, arm) trained."""
    return [(b, a) for b in config["doubting"]["downstream"]["base_models"] for a in ARMS]
