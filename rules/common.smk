# Shared wiring helpers: paths, shard lists, and the settings and code params that drive rerun decisions.
import inspect
import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow_scripts"))

from snakemake.common import overwrite_function_params

from irdata.logs import TRACEBACK_ENV as _TRACEBACK_ENV
from irdata.doubting.audit_ranking import OWN_RUNS as AUDIT_OWN_RUNS, run_files as _audit_run_files
from irdata.config_check import CONFIG_SECTIONS, ConfigError
from irdata.doubting.stages import frozen_version_conflict as _frozen_version_conflict
from irdata.retrieval.layout import index_dir as _index_dir, index_files as _index_files
from irdata.shard_files import shard_file as _shard_file, shard_files as _shard_files
from irdata.shards import size_shard_count as _size_shard_count
from irdata.stages import StageWiring
from irdata.workdir import WORK, resolve_config_inputs, workflow_file as _workflow_file
from irdata.doubting.release_files import DATA_FILES as _DS_DATA_FILES
from irdata.downstream import wiring as _ds
from irdata.downstream.plan import check_downstream_plan as _check_downstream_plan
from irdata.downstream.stages import (
    ARMS as _DS_ARMS,
    DS,
    RESULT as DS_RESULT,
    MODELS as _DS_MODELS,
    collections as _ds_collections,
)

# Config sections, each validated against schemas/<section>.schema.yaml (defaults filled in; a mistake was
# reported in a few lines by the Snakefile's check_config already).
for _section in CONFIG_SECTIONS:
    try:
        validate(config[_section], f"../schemas/{_section}.schema.yaml")
    except WorkflowError as error:
        raise WorkflowError(f"In config section {_section!r} (schemas/{_section}.schema.yaml):", error)

# `snakemake -d DIR`: the config's input files that only the workflow folder holds (the demo's) are read
# from there; outputs go to the working folder (irdata/workdir.py)
resolve_config_inputs(config, workflow.basedir)

# a version frozen with another config stops the planning, before any stage (stage_release checks the content)
_frozen = _frozen_version_conflict(config)
if _frozen:
    raise WorkflowError(_frozen)

# so does a downstream comparison that cannot run: an unavailable base model, eval set names that collide, train
# qrels without a positive (irdata/downstream/plan.py), rather than failing after its first jobs
try:
    _check_downstream_plan(config["doubting"])
except ConfigError as _error:
    raise WorkflowError(str(_error)) from None

# rule scripts log a bad input's traceback only when Snakemake's own --verbose asks (irdata/logs.py)
os.environ[_TRACEBACK_ENV] = "1" if workflow.output_settings.verbose else "0"

DOUBTING = config["doubting"]


def _rule_script(name):
    """The script the named rule runs, relative to the workflow folder (the file its code hash covers)."""
    named = workflow.get_rule(name)
    return os.path.relpath(named.basedir.join(named.script).get_path_or_uri(secret_free=True), workflow.basedir)


# the params and prompt inputs of every rule (irdata/stages.py)
STAGE = StageWiring(config, workflow.basedir, _rule_script)
DOUBTING_IDS = {
    "train_collection": f"{WORK}/doubting/ids/train_collection.txt",
    "train_excluded": f"{WORK}/doubting/ids/train_excluded.tsv",
    "dev_all": f"{WORK}/doubting/ids/dev_all.txt",
}
# The input source (doubting.source): MS MARCO-format files, or a BEIR folder (irdata/beir_inputs.py)
BEIR = DOUBTING["source"]["format"] == "beir"
# the query files every later stage reads: MS MARCO's as given, a BEIR folder's as its input check wrote them
QUERIES = (
    {
        "train": f"{WORK}/doubting/inputs/train.queries.tsv",
        "dev": f"{WORK}/doubting/inputs/dev.queries.tsv",
        "heldout": [f"{WORK}/doubting/inputs/heldout.queries.tsv"],
    }
    if BEIR
    else {
        "train": DOUBTING["train_queries"],
        "dev": DOUBTING["dev_queries"],
        "heldout": DOUBTING["heldout_queries"],
    }
)
DOUBTING_INPUTS_REPORT = f"{WORK}/doubting/inputs.json"
# the inputs as the input check (validate_msmarco_inputs or validate_beir_inputs) checked them: what every later stage reads instead of the raw
# files (qrels minus the rows dropped per doubting.qrels_missing_passages; answers of the dev queries
# only, as JSON lines, whatever format doubting.dev_answers has)
DOUBTING_CHECKED = {
    "train_qrels": f"{WORK}/doubting/inputs/train.qrels",
    "dev_qrels": f"{WORK}/doubting/inputs/dev.qrels",
    "dev_answers": f"{WORK}/doubting/inputs/dev_answers.jsonl",
}


def workflow_file(path):
    """A file of the workflow folder (a prompt, a resource) as a rule's input or param names it."""
    return _workflow_file(path, workflow.basedir)


# One way rules get their params (as PyPSA-Eur's config_provider): `**stage_params(<rule>)`, from the Stage
# its family's stages module declares. Snakemake reads a param function's signature for every job; read once.
def stage_params(name, files=()):
    """A rule's params: settings, code hash and, for an LLM job, its journal name and retry state."""
    return {key: _signature_read_once(value) for key, value in STAGE.params(name, files).items()}


def _signature_read_once(value):
    if callable(value):
        overwrite_function_params(value, inspect.signature(value).parameters)
    return value


def stage_prompts(name):
    """The prompt files of a stage's jobs, as named inputs `prompt_<name>`."""
    return lambda wildcards: STAGE.prompt_inputs(name, wildcards)


# Params naming the folder of an input or output: functions of the job's files, so Snakemake records no value
# of them (a param it records reruns its jobs when it changes; these follow their files anyway).
def input_folder(name):
    """The folder of the job's input `name` (a list of files in one folder, as an index)."""
    return lambda wildcards, input: os.path.dirname(input[name][0])


def output_folder(name=None):
    """The folder of the job's output `name`, or of its first output."""
    return lambda wildcards, output: os.path.dirname((output[name] if name else output)[0])


def shard_paths(split, kind="ids", rule=None):
    """Every shard's file of one kind (irdata/shard_files.py), in shard order."""
    return _shard_files(WORK, kind, split, DOUBTING["shards"][split], rule)


def shard_path(kind, split="{split}", shard="{shard}", rule=None):
    """One shard's file (by default the pattern with the split and shard wildcards)."""
    return _shard_file(WORK, kind, split, shard, rule)


# Collections that the retrieval rules index, by name (the {collection} wildcard): their TSV as
# written or given, and their passage store (work/store/<name>/passages.arrow), which the indexes
# read. MS MARCO's store is written by validate_msmarco_inputs, the 44b one by papers_store.
COLLECTIONS = {
    "msmarco": DOUBTING["collection"],
    "papers44b": f"{WORK}/eval44b/papers.tsv",
}
STORES = {name: f"{WORK}/store/{name}/passages.arrow" for name in COLLECTIONS}
# A file that exists when the DAG is built and bounds each collection's size: the number of
# encoding jobs is known then (the 44b papers.tsv is written from the raw papers file).
COLLECTION_SOURCES = {
    "msmarco": f"{DOUBTING['source']['folder']}/corpus.jsonl" if BEIR else DOUBTING["collection"],
    "papers44b": config["eval44b"]["papers"],
}


def collection_store(wildcards):
    return STORES[wildcards.collection]


def encode_shard_count(collection):
    """Encoding jobs of a collection: its source file's size over retrieval.dense.encode_shard_mb."""
    return _size_shard_count(COLLECTION_SOURCES[collection], config["retrieval"]["dense"]["encode_shard_mb"])


# Indexes are folders, declared by their files (irdata/retrieval/layout.py).
def dense_index_dir(collection):
    return _index_dir(collection, "dense")


def bm25_index_dir(collection):
    return _index_dir(collection, "bm25")


def bm25_index_files(collection):
    return _index_files(bm25_index_dir(collection), "bm25")


def dense_index_files(collection):
    return _index_files(dense_index_dir(collection), "dense")


def encoded_shards(wildcards, ext):
    shards = encode_shard_count(wildcards.collection)
    return [f"{WORK}/index/{wildcards.collection}/encoded/{i:04d}.{ext}" for i in range(shards)]


def split_queries(wildcards):
    return QUERIES[wildcards.split]


# The LLM stages (rules/annotate.smk)
def grade_inputs(wildcards):
    """The reference answers, for a grading mode that sees them."""
    if STAGE.settings("grade", wildcards)["sees_answers"]:
        return {"answers": DOUBTING_CHECKED["dev_answers"]}
    return {}


# The label audit (rules/package.smk)
DOUBTING_AUDIT = f"{WORK}/doubting/audit/audit.json"
# its system-ranking agreement: the workflow's own runs and the configured ones (irdata/doubting/audit_ranking.py)
DOUBTING_AUDIT_RANKING = f"{WORK}/doubting/audit/ranking.json"
DOUBTING_AUDIT_RUNS = {name: f"{WORK}/doubting/audit/runs/{name}.trec" for name in AUDIT_OWN_RUNS}


# the blinded human audit (irdata/doubting/human_audit.py), when it draws a sample
DOUBTING_HUMAN_AUDIT = (
    f"{WORK}/doubting/human_audit/results.json" if DOUBTING["audit"]["human"]["sample_queries"] else None
)


def release_audit(wildcards):
    """The label audit and the human audit, when the config asks for them (doubting.audit)."""
    audits = {"human_audit": DOUBTING_HUMAN_AUDIT} if DOUBTING_HUMAN_AUDIT else {}
    if not DOUBTING["audit"]["qrels"]:
        return audits
    return {**audits, "audit": DOUBTING_AUDIT, "audit_ranking": DOUBTING_AUDIT_RANKING}


def release_downstream(wildcards):
    """The downstream comparison (rules/downstream.smk), when the config runs one (doubting.downstream)."""
    return {"downstream": DS_RESULT} if DOUBTING["downstream"]["enabled"] else {}


# The downstream comparison (rules/downstream.smk): what irdata/downstream/wiring.py computes, by wildcards
DS_BASES = DOUBTING["downstream"]["base_models"]
DS_COLLECTIONS = _ds_collections(config)
DS_EVALUATIONS = _ds.evaluations(config)
DS_TRAININGS = _ds.trainings(config)


def ds_beir_files(wildcards):
    return _ds.beir_files(config, wildcards.dscoll)


def ds_store(wildcards):
    return _ds.store(wildcards.dscoll, STORES["msmarco"])


def ds_shard_count(wildcards):
    return _ds.shard_count(config, wildcards.dscoll, COLLECTION_SOURCES["msmarco"])


def ds_model_inputs(wildcards):
    return _ds.model_inputs(wildcards.dsbase, wildcards.dsmodel)


def ds_encoded(wildcards, ext):
    return _ds.encoded(wildcards.dsbase, wildcards.dsmodel, wildcards.dscoll, ds_shard_count(wildcards), ext)


def ds_qrels_sets(wildcards):
    return _ds.qrels_sets(config, wildcards.dscoll, DOUBTING_ASSEMBLED, DOUBTING_CHECKED["dev_qrels"])


def ds_qrels_grades(wildcards):
    return _ds.qrels_grades(ds_qrels_sets(wildcards))


def ds_evaluate_inputs(wildcards):
    return _ds.evaluate_inputs(
        wildcards.dsbase, wildcards.dsmodel, wildcards.dscoll, QUERIES["dev"], ds_qrels_sets(wildcards)
    )
