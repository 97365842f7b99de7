# A Doubting build, the LLM stages, one job per query shard: agent search (train and dev),
# grading (train and dev), answer generation and WOOD (train). What each script reads is its Stage
# (irdata/annotate/stages.py); the rules pass exactly that as the `settings` param,
# so servers, timeouts and concurrency, which change no answer, rerun nothing. Every job journals its
# LLM calls outside its outputs (llm.journal_dir): a rerun repeats no completed call, and the `retry`
# param reruns a job whose last run left retryable failures (irdata/annotate/retry.py).
SHARD = shard_path("ids")


wildcard_constraints:
    split="train|dev",
    shard="[0-9]{4}",


rule agent_search:
    input:
        unpack(stage_prompts("agent_search")),
        shard=SHARD,
        queries=split_queries,
        collection=BUILD_STORE,
        bm25=bm25_index_files("{build}"),
        dense=dense_index_files("{build}"),
    output:
        proposals=shard_path("agent"),
        trace=shard_path("traces"),
        stats=shard_path("stats", rule="agent_search"),
    log:
        logs("agent_search/{build}/{split}/{shard}.log"),
    benchmark:
        benchmarks("agent_search/{build}/{split}/{shard}.tsv")
    conda:
        "../envs/llm.yaml"
    resources:
        llm_slots=1,
    params:
        **stage_params("agent_search"),
        bm25_dir=input_folder("bm25"),
        dense_dir=input_folder("dense"),
    script:
        "../workflow_scripts/agent_search.py"


rule grade:
    input:
        unpack(stage_prompts("grade")),
        unpack(grade_inputs),
        shard=SHARD,
        agent=shard_path("agent"),
        queries=split_queries,
        collection=BUILD_STORE,
        qrels=lambda w: DOUBTING_CHECKED[f"{w.split}_qrels"],
    output:
        grades=shard_path("grades"),
        stats=shard_path("stats", rule="grade"),
    log:
        logs("grade/{build}/{split}/{shard}.log"),
    benchmark:
        benchmarks("grade/{build}/{split}/{shard}.tsv")
    conda:
        "../envs/llm.yaml"
    resources:
        llm_slots=1,
    params:
        **stage_params("grade"),
    script:
        "../workflow_scripts/grade.py"


rule generate_answer:
    input:
        unpack(stage_prompts("generate_answer")),
        agent=shard_path("agent", "train"),
        grades=shard_path("grades", "train"),
        queries=queries("train"),
        collection=BUILD_STORE,
    output:
        answers=shard_path("answers", "train"),
        stats=shard_path("stats", "train", rule="generate_answer"),
    log:
        logs("generate_answer/{build}/train/{shard}.log"),
    benchmark:
        benchmarks("generate_answer/{build}/train/{shard}.tsv")
    conda:
        "../envs/llm.yaml"
    resources:
        llm_slots=1,
    params:
        **stage_params("generate_answer"),
    script:
        "../workflow_scripts/generate_answer.py"


rule wood:
    input:
        unpack(stage_prompts("wood")),
        agent=shard_path("agent", "train"),
        answers=shard_path("answers", "train"),
        queries=queries("train"),
        collection=BUILD_STORE,
    output:
        wood=shard_path("wood", "train"),
        stats=shard_path("stats", "train", rule="wood"),
    log:
        logs("wood/{build}/train/{shard}.log"),
    benchmark:
        benchmarks("wood/{build}/train/{shard}.tsv")
    conda:
        "../envs/llm.yaml"
    resources:
        llm_slots=1,
    params:
        **stage_params("wood"),
    script:
        "../workflow_scripts/wood.py"


rule llm_identity:
    output:
        identity=build_file("llm_identity"),
    log:
        logs("llm_identity/{build}.log"),
    benchmark:
        benchmarks("llm_identity/{build}.tsv")
    conda:
        "../envs/llm.yaml"
    params:
        **stage_params("llm_identity"),
    script:
        "../workflow_scripts/llm_identity.py"
