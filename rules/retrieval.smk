# Retrieval indexes over a named collection ({collection}: see COLLECTIONS / STORES in common.smk):
# BM25 (bm25s) and dense (sentence-transformers shards merged into faiss), both read from the
# collection's passage store. Searching is irdata.retrieval.search.Searcher, used by the agent and
# the negative miner; passage texts by id are irdata.passage_store.PassageStore.


wildcard_constraints:
    collection="|".join(re.escape(name) for name in COLLECTIONS),
    shard=r"[0-9]{4}",


# A build's store comes out of its input check (rules/queries.smk), which parses its files.
rule papers_store:
    input:
        collection=eval44b_file("collection"),
    output:
        store=STORES[PAPERS44B],
    log:
        logs("papers_store.log"),
    benchmark:
        benchmarks("papers_store.tsv")
    conda:
        "../envs/retrieval.yaml"
    params:
        **stage_params("papers_store"),
    script:
        "../workflow_scripts/papers_store.py"


rule index_bm25:
    input:
        store=collection_store,
    output:
        index=bm25_index_files("{collection}"),
    log:
        logs("index_bm25/{collection}.log"),
    benchmark:
        benchmarks("index_bm25/{collection}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: 4  # tokenizing processes; capped by --cores
    params:
        **stage_params("index_bm25"),
        index_dir=output_folder(),
    script:
        "../workflow_scripts/index_bm25.py"


rule encode_passages:
    input:
        store=collection_store,
    output:
        embeddings=encoded_passages(ext="npy"),
        meta=encoded_passages(ext="json"),
    log:
        logs("encode_passages/{collection}/{shard}.log"),
    benchmark:
        benchmarks("encode_passages/{collection}/{shard}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: 8  # torch on CPU; capped by --cores
    params:
        **stage_params("encode_passages"),
        shards=lambda wildcards: encode_shard_count(wildcards.collection),
    script:
        "../workflow_scripts/encode_passages.py"


rule index_dense:
    input:
        store=collection_store,
        embeddings=lambda wildcards: encoded_shards(wildcards, "npy"),
        meta=lambda wildcards: encoded_shards(wildcards, "json"),
    output:
        index=dense_index_files("{collection}"),
    log:
        logs("index_dense/{collection}.log"),
    benchmark:
        benchmarks("index_dense/{collection}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: 8  # faiss's HNSW build is multi-threaded; capped by --cores
    params:
        **stage_params("index_dense"),
        index_dir=output_folder(),
    script:
        "../workflow_scripts/index_dense.py"
