# Shared wiring helpers: paths, shard lists and the code hashes that drive rerun decisions.
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow_scripts"))

from irdata.llm import load_settings as _load_llm_settings
from irdata.provenance import code_hash as _code_hash

# Config sections, each validated against schemas/<section>.schema.yaml (defaults filled in).
CONFIG_SECTIONS = ["doubting", "annotation", "llm", "retrieval", "eval44b"]

for _section in CONFIG_SECTIONS:
    try:
        validate(config[_section], f"../schemas/{_section}.schema.yaml")
    except WorkflowError as error:
        raise WorkflowError(f"In config section {_section!r} (schemas/{_section}.schema.yaml):", error)

WORK = "work"
LLM = _load_llm_settings(config["llm"])
DOUBTING = config["doubting"]
DOUBTING_IDS = {
    "train_collection": f"{WORK}/doubting/ids/train_collection.txt",
    "train_excluded": f"{WORK}/doubting/ids/train_excluded.tsv",
    "dev_all": f"{WORK}/doubting/ids/dev_all.txt",
}
# the inputs as validate_msmarco_inputs checked them: what every later stage reads instead of the raw
# files (qrels minus the rows dropped per doubting.qrels_missing_passages; answers of the dev queries
# only, as JSON lines, whatever format doubting.dev_answers has)
DOUBTING_CHECKED = {
    "train_qrels": f"{WORK}/doubting/inputs/train.qrels",
    "dev_qrels": f"{WORK}/doubting/inputs/dev.qrels",
    "dev_answers": f"{WORK}/doubting/inputs/dev_answers.jsonl",
}


def code_hash(script, prompts=(), settings=None):
    """Param that changes exactly when the rule's script, imported modules, prompts or settings do."""
    return _code_hash(script, workflow.basedir, prompts=prompts, settings=settings)


def sample_size(split):
    return DOUBTING[f"{split}_sample"]["size"] if config["queries"] == "sample" else None


def shard_paths(split):
    n = DOUBTING["shards"][split]
    return [f"{WORK}/doubting/shards/{split}/{i:04d}.txt" for i in range(n)]


def train_shards():
    return shard_paths("train")


def dev_shards():
    return shard_paths("dev")


# Collections that the retrieval rules index, by name (the {collection} wildcard).
COLLECTIONS = {
    "msmarco": DOUBTING["collection"],
    "papers44b": f"{WORK}/eval44b/papers.tsv",
}


def collection_path(wildcards):
    return COLLECTIONS[wildcards.collection]


def llm_answer_settings(stage):
    """The LLM settings that change a stage's answers (not servers, timeouts or concurrency)."""
    settings = LLM.for_stage(stage)
    return {**settings.answer_settings(), "gguf": settings.gguf}


def collection_validation(wildcards):
    """The input check a collection must pass before it is indexed, so that no expensive stage
    starts on bad input (the 44b collection is written by split_papers from checked input)."""
    if wildcards.collection == "msmarco":
        return f"{WORK}/doubting/inputs.json"
    return []


# Retrieval indexes (rules/retrieval.smk)
RETRIEVAL = config["retrieval"]


def retrieval_settings(part, keys):
    """The settings a rule's output depends on: changing any other key does not rerun it."""
    return {key: RETRIEVAL[part][key] for key in keys}


BM25_SETTINGS = RETRIEVAL["bm25"]
# ef_search is applied when searching, device and encode_shards do not change the vectors
ENCODE_SETTINGS = retrieval_settings("dense", ["model", "normalize", "max_seq_length", "batch_size", "device"])
DENSE_INDEX_SETTINGS = retrieval_settings(
    "dense", ["model", "normalize", "max_seq_length", "hnsw_threshold", "hnsw_m", "ef_construction"]
)
ENCODE_SHARDS = RETRIEVAL["dense"]["encode_shards"]


# Indexes are folders, declared by their files rather than as directory() outputs: Snakemake keeps
# checksums of files, so a touched index (a copy, a checkout) reruns nothing downstream.
BM25_FILES = ["settings.json", "ids.arrow", "params.index.json", "vocab.index.json",
              "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"]
DENSE_FILES = ["settings.json", "ids.arrow", "index.faiss"]


def dense_index_dir(collection):
    return f"{WORK}/index/{collection}/dense"


def bm25_index_dir(collection):
    return f"{WORK}/index/{collection}/bm25"


def bm25_index_files(collection):
    return [f"{bm25_index_dir(collection)}/{name}" for name in BM25_FILES]


def dense_index_files(collection):
    return [f"{dense_index_dir(collection)}/{name}" for name in DENSE_FILES]


def encoded_shards(wildcards, ext):
    return [f"{WORK}/index/{wildcards.collection}/encoded/{i:04d}.{ext}" for i in range(ENCODE_SHARDS)]


def split_queries(wildcards):
    return DOUBTING[f"{wildcards.split}_queries"]
