# Retrieval indexes over a named collection ({collection}: see COLLECTIONS / collection_path in
# common.smk): BM25 (bm25s) and dense (sentence-transformers shards merged into faiss). Searching
# is irdata.retrieval.search.Searcher, used by the agent and the negative miner.

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


def dense_index_dir(collection):
    return f"{WORK}/index/{collection}/dense"


def bm25_index_dir(collection):
    return f"{WORK}/index/{collection}/bm25"


def encoded_shards(wildcards, ext):
    return [f"{WORK}/index/{wildcards.collection}/encoded/{i:04d}.{ext}" for i in range(ENCODE_SHARDS)]


wildcard_constraints:
    collection=r"[A-Za-z0-9_]+",
    shard=r"[0-9]{4}",


rule index_bm25:
    input:
        collection=collection_path,
        validated=collection_validation,
    output:
        directory(bm25_index_dir("{collection}")),
    params:
        code=code_hash("workflow_scripts/index_bm25.py", settings=BM25_SETTINGS),
        settings=BM25_SETTINGS,
    log:
        "logs/index_bm25/{collection}.log",
    conda:
        "../envs/retrieval.yaml"
    script:
        "../workflow_scripts/index_bm25.py"


rule encode_passages:
    input:
        collection=collection_path,
        validated=collection_validation,
    output:
        embeddings=f"{WORK}/index/{{collection}}/encoded/{{shard}}.npy",
        meta=f"{WORK}/index/{{collection}}/encoded/{{shard}}.json",
    params:
        code=code_hash("workflow_scripts/encode_passages.py", settings=ENCODE_SETTINGS),
        settings=RETRIEVAL["dense"],
        shards=ENCODE_SHARDS,
    threads: 8  # torch on CPU; capped by --cores
    log:
        "logs/encode_passages/{collection}/{shard}.log",
    conda:
        "../envs/retrieval.yaml"
    script:
        "../workflow_scripts/encode_passages.py"


rule index_dense:
    input:
        collection=collection_path,
        validated=collection_validation,
        embeddings=lambda wildcards: encoded_shards(wildcards, "npy"),
        meta=lambda wildcards: encoded_shards(wildcards, "json"),
    output:
        directory(dense_index_dir("{collection}")),
    params:
        code=code_hash("workflow_scripts/index_dense.py", settings=DENSE_INDEX_SETTINGS),
        settings=RETRIEVAL["dense"],
    threads: 8  # faiss's HNSW build is multi-threaded; capped by --cores
    log:
        "logs/index_dense/{collection}.log",
    conda:
        "../envs/retrieval.yaml"
    script:
        "../workflow_scripts/index_dense.py"
