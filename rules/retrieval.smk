# Retrieval indexes over a named collection ({collection}: see COLLECTIONS / collection_path in
# common.smk): BM25 (bm25s) and dense (sentence-transformers shards merged into faiss). Searching
# is irdata.retrieval.search.Searcher, used by the agent and the negative miner.

wildcard_constraints:
    collection=r"[A-Za-z0-9_]+",
    shard=r"[0-9]{4}",


rule index_bm25:
    input:
        collection=collection_path,
        validated=collection_validation,
    output:
        bm25_index_files("{collection}"),
    params:
        code=code_hash("workflow_scripts/index_bm25.py", settings=BM25_SETTINGS),
        settings=BM25_SETTINGS,
        index_dir=lambda wildcards, output: os.path.dirname(output[0]),
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
        dense_index_files("{collection}"),
    params:
        index_dir=lambda wildcards, output: os.path.dirname(output[0]),
        code=code_hash("workflow_scripts/index_dense.py", settings=DENSE_INDEX_SETTINGS),
        settings=DENSE_INDEX_SETTINGS,
    threads: 8  # faiss's HNSW build is multi-threaded; capped by --cores
    log:
        "logs/index_dense/{collection}.log",
    conda:
        "../envs/retrieval.yaml"
    script:
        "../workflow_scripts/index_dense.py"
