# 44b Eval (spec/44b-eval.card.txt): paper-disjoint split, review queries, screened hard negatives,
# scored arms, release files. Logic in workflow_scripts/irdata/eval44b/.
import re

EVAL44B = config["eval44b"]
E44 = f"{WORK}/eval44b"
E44_SPLITS = ["train", "val", "test"]


# the scored arms: retrieval arms, then cross-encoders, then the LLM
EVAL44B_ARMS = (
    list(EVAL44B["scoring"]["arms"])
    + [f"cross_encoder-{spec['name']}" for spec in EVAL44B["scoring"]["cross_encoders"]]
    + (["llm"] if EVAL44B["scoring"]["llm"]["enabled"] else [])
)
EVAL44B_RELEASE = {
    "test": f"{EVAL44B['release']}/test.jsonl",
    "results": f"{EVAL44B['release']}/results.jsonl",
    "manifest": f"{EVAL44B['release']}/manifest.json",
    "train_pairs": f"{EVAL44B['release']}/train_pairs.jsonl",
    "val_pairs": f"{EVAL44B['release']}/val_pairs.jsonl",
    "sums": f"{EVAL44B['release']}/SHA256SUMS",
}
EVAL44B_SPLIT_SETTINGS = {k: EVAL44B[k] for k in ("format", "salt", "key_format", "split")}
E44_RETRIEVAL = config["retrieval"]
# what the miners' results depend on (the indexes themselves are inputs)
E44_SEARCH = {
    "bm25": E44_RETRIEVAL["bm25"],
    "dense": {k: E44_RETRIEVAL["dense"][k] for k in ("model", "normalize", "max_seq_length", "ef_search")},
}
EVAL44B_MINING = EVAL44B["mining"]
EVAL44B_SCORING = {
    **{k: v for k, v in EVAL44B["scoring"].items() if k != "arms"},
    "negatives": EVAL44B["mining"]["negatives"],
    "retrieval": {"bm25": E44_RETRIEVAL["bm25"], "dense": E44_RETRIEVAL["dense"]},
    "rrf_k": E44_RETRIEVAL["rrf_k"],
}
# what each arm reads (its params) and depends on: changing one arm's settings reruns only that arm.
# The LLM arm reads the llm section from the config, as the annotation stages do; its hash covers
# the settings that change answers.
ARM44B_PROMPT = "prompts/grade_44b_pair.txt"
E44_ARM_PROMPTS = {"llm": [ARM44B_PROMPT]}
E44_ARM_COMMON = {k: EVAL44B_SCORING[k] for k in ("query_chars", "document_chars", "seed", "negatives", "record_timing")}
E44_ARM_OWN = {
    "random": {},
    "bm25": {"retrieval": {"bm25": E44_RETRIEVAL["bm25"]}},
    "dense": {"retrieval": {"dense": E44_RETRIEVAL["dense"]}},
    "hybrid_rrf": {"retrieval": EVAL44B_SCORING["retrieval"], "rrf_k": E44_RETRIEVAL["rrf_k"]},
    "llm": {"llm": EVAL44B["scoring"]["llm"], "prompt": ARM44B_PROMPT},
    **{
        f"cross_encoder-{spec['name']}": {"cross_encoders": [spec]}
        for spec in EVAL44B["scoring"]["cross_encoders"]
    },
}
EVAL44B_ARM_SETTINGS = {arm: {**E44_ARM_COMMON, **E44_ARM_OWN[arm]} for arm in EVAL44B_ARMS}
E44_ARM_HASHED = {
    arm: [settings, llm_answer_settings("arm44b") if arm == "llm" else None]
    for arm, settings in EVAL44B_ARM_SETTINGS.items()
}


wildcard_constraints:
    e44split="train|val|test",
    e44arm="|".join(re.escape(arm) for arm in EVAL44B_ARMS) or "none",


rule split_papers:
    input:
        papers=EVAL44B["papers"],
        reviews=EVAL44B["reviews"],
    output:
        collection=COLLECTIONS["papers44b"],
        papers=f"{E44}/papers.jsonl",
        reviews=f"{E44}/reviews.jsonl",
        report=f"{E44}/split.json",
    # Reads and checks the 44b inputs: first, like validate_msmarco_inputs.
    priority: 100
    params:
        code=code_hash("workflow_scripts/split_papers.py", settings=EVAL44B_SPLIT_SETTINGS),
        settings=EVAL44B_SPLIT_SETTINGS,
    log:
        "logs/eval44b/split_papers.log",
    conda:
        "../envs/eval44b.yaml"
    script:
        "../workflow_scripts/split_papers.py"


rule select_queries:
    input:
        reviews=rules.split_papers.output.reviews,
    output:
        **{split: f"{E44}/queries/{split}.jsonl" for split in E44_SPLITS},
        report=f"{E44}/queries/report.json",
    params:
        code=code_hash("workflow_scripts/select_queries.py", settings=EVAL44B["min_query_chars"]),
        min_chars=EVAL44B["min_query_chars"],
    log:
        "logs/eval44b/select_queries.log",
    conda:
        "../envs/eval44b.yaml"
    script:
        "../workflow_scripts/select_queries.py"


rule mine_negatives:
    input:
        queries=f"{E44}/queries/{{e44split}}.jsonl",
        papers=rules.split_papers.output.papers,
        bm25=bm25_index_files("papers44b"),
        dense=dense_index_files("papers44b"),
    output:
        mined=f"{E44}/mined/{{e44split}}.jsonl",
        report=f"{E44}/mined/{{e44split}}.report.json",
    params:
        code=code_hash("workflow_scripts/mine_negatives.py", settings=[EVAL44B_MINING, E44_SEARCH]),
        settings=EVAL44B_MINING,
        retrieval=E44_RETRIEVAL,
        bm25=lambda wildcards, input: os.path.dirname(input.bm25[0]),
        dense=lambda wildcards, input: os.path.dirname(input.dense[0]),
    log:
        "logs/eval44b/mine_negatives.{e44split}.log",
    conda:
        "../envs/eval44b.yaml"
    script:
        "../workflow_scripts/mine_negatives.py"


rule score_arms:
    input:
        mined=f"{E44}/mined/test.jsonl",
        queries=f"{E44}/queries/test.jsonl",
        collection=rules.split_papers.output.collection,
    output:
        f"{E44}/arms/{{e44arm}}.json",
    params:
        code=lambda wildcards: code_hash(
            "workflow_scripts/score_arms.py",
            prompts=E44_ARM_PROMPTS.get(wildcards.e44arm, []),
            settings=E44_ARM_HASHED[wildcards.e44arm],
        ),
        settings=lambda wildcards: EVAL44B_ARM_SETTINGS[wildcards.e44arm],
    log:
        "logs/eval44b/score_arms.{e44arm}.log",
    conda:
        "../envs/eval44b.yaml"
    script:
        "../workflow_scripts/score_arms.py"


rule package_44b:
    input:
        raw_papers=EVAL44B["papers"],
        raw_reviews=EVAL44B["reviews"],
        papers=rules.split_papers.output.papers,
        split_report=rules.split_papers.output.report,
        queries_report=rules.select_queries.output.report,
        **{f"mined_{split}": f"{E44}/mined/{split}.jsonl" for split in E44_SPLITS},
        **{f"report_{split}": f"{E44}/mined/{split}.report.json" for split in E44_SPLITS},
        arms=expand(f"{E44}/arms/{{arm}}.json", arm=EVAL44B_ARMS),
    output:
        **EVAL44B_RELEASE,
    params:
        code=code_hash("workflow_scripts/package_44b.py", settings=EVAL44B),
        settings={
            "split": EVAL44B["split"],
            "unresolvable_schemes": EVAL44B["unresolvable_schemes"],
            "mining_recipe": EVAL44B_MINING,
            "scoring": EVAL44B_SCORING,
        },
    log:
        "logs/eval44b/package_44b.log",
    conda:
        "../envs/eval44b.yaml"
    script:
        "../workflow_scripts/package_44b.py"
