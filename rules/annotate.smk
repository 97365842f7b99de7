# Doubting MS MARCO, the LLM stages, one job per query shard: agent search (train and dev),
# grading (train and dev), answer generation and WOOD (train). Every job keeps a journal of its
# LLM calls outside its outputs (llm.journal_dir), so a rerun repeats no completed call.
# Scripts read the llm/retrieval/annotation settings from the config, not from params: only the
# settings that change answers are in the `code` param, so pointing at other servers reruns nothing.

AGENT_PROMPTS = ["prompts/agent_system.txt", "prompts/agent_task.txt"]
GRADE_PROMPTS = {"train": "prompts/grade_query_only.txt", "dev": "prompts/grade_answer_hinted.txt"}
ANSWER_PROMPT = "prompts/answer.txt"
WOOD_PROMPTS = ["prompts/wood_with_passage.txt", "prompts/wood_query_only.txt"]
SHARD = f"{WORK}/doubting/shards/{{split}}/{{shard}}.txt"
AGENT_OUT = f"{WORK}/doubting/agent/{{split}}/{{shard}}.parquet"
GRADES_OUT = f"{WORK}/doubting/grades/{{split}}/{{shard}}.parquet"
ANSWERS_OUT = f"{WORK}/doubting/answers/train/{{shard}}.parquet"
WOOD_OUT = f"{WORK}/doubting/wood/train/{{shard}}.parquet"


wildcard_constraints:
    split="train|dev",
    shard="[0-9]{4}",


rule agent_search:
    input:
        shard=SHARD,
        queries=split_queries,
        collection=DOUBTING["collection"],
        validated=rules.validate_msmarco_inputs.output[0],
        bm25=bm25_index_files("msmarco"),
        dense=dense_index_files("msmarco"),
        prompts=AGENT_PROMPTS,
    output:
        proposals=AGENT_OUT,
        trace=f"{WORK}/doubting/traces/{{split}}/{{shard}}.jsonl",
        stats=f"{WORK}/doubting/stats/agent_search/{{split}}/{{shard}}.json",
    params:
        code=lambda w: code_hash(
            "workflow_scripts/agent_search.py",
            prompts=AGENT_PROMPTS,
            settings=[llm_answer_settings("agent"), config["annotation"]["agent"][w.split], RETRIEVAL["rrf_k"]],
        ),
        bm25_dir=lambda wildcards, input: os.path.dirname(input.bm25[0]),
        dense_dir=lambda wildcards, input: os.path.dirname(input.dense[0]),
    resources:
        llm_slots=1,
    log:
        "logs/agent_search/{split}/{shard}.log",
    conda:
        "../envs/llm.yaml"
    script:
        "../workflow_scripts/agent_search.py"


rule grade:
    input:
        shard=SHARD,
        agent=AGENT_OUT,
        queries=split_queries,
        collection=DOUBTING["collection"],
        qrels=lambda w: DOUBTING[f"{w.split}_qrels"],
        answers=DOUBTING["dev_answers"],
        prompt=lambda w: GRADE_PROMPTS[w.split],
    output:
        grades=GRADES_OUT,
        stats=f"{WORK}/doubting/stats/grade/{{split}}/{{shard}}.json",
    params:
        code=lambda w: code_hash(
            "workflow_scripts/grade.py", prompts=[GRADE_PROMPTS[w.split]], settings=llm_answer_settings("grade")
        ),
    resources:
        llm_slots=1,
    log:
        "logs/grade/{split}/{shard}.log",
    conda:
        "../envs/llm.yaml"
    script:
        "../workflow_scripts/grade.py"


rule generate_answer:
    input:
        agent=AGENT_OUT.format(split="train", shard="{shard}"),
        grades=GRADES_OUT.format(split="train", shard="{shard}"),
        queries=DOUBTING["train_queries"],
        collection=DOUBTING["collection"],
        prompt=ANSWER_PROMPT,
    output:
        answers=ANSWERS_OUT,
        stats=f"{WORK}/doubting/stats/generate_answer/train/{{shard}}.json",
    params:
        code=code_hash(
            "workflow_scripts/generate_answer.py",
            prompts=[ANSWER_PROMPT],
            settings=[llm_answer_settings("answer"), config["annotation"]["answer_max_tokens"]],
        ),
    resources:
        llm_slots=1,
    log:
        "logs/generate_answer/train/{shard}.log",
    conda:
        "../envs/llm.yaml"
    script:
        "../workflow_scripts/generate_answer.py"


rule wood:
    input:
        agent=AGENT_OUT.format(split="train", shard="{shard}"),
        answers=ANSWERS_OUT,
        queries=DOUBTING["train_queries"],
        collection=DOUBTING["collection"],
        prompts=WOOD_PROMPTS,
    output:
        wood=WOOD_OUT,
        stats=f"{WORK}/doubting/stats/wood/train/{{shard}}.json",
    params:
        code=code_hash("workflow_scripts/wood.py", prompts=WOOD_PROMPTS, settings=llm_answer_settings("wood")),
    resources:
        llm_slots=1,
    log:
        "logs/wood/train/{shard}.log",
    conda:
        "../envs/llm.yaml"
    script:
        "../workflow_scripts/wood.py"


rule llm_identity:
    output:
        f"{WORK}/doubting/llm_identity.json",
    params:
        code=code_hash("workflow_scripts/llm_identity.py", settings=llm_answer_settings(None)),
    log:
        "logs/llm_identity.log",
    conda:
        "../envs/llm.yaml"
    script:
        "../workflow_scripts/llm_identity.py"
