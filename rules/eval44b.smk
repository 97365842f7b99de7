# 44b Eval (spec/44b-eval.card.txt): paper-disjoint split, review queries, screened hard negatives,
# scored arms, release files. Logic in workflow_scripts/irdata/eval44b/; what each rule reads is its
# Stage (irdata/eval44b/stages.py).
import re

from irdata.eval44b.finetune import MODEL_FILES as E44_MODEL_FILES
from irdata.eval44b.stages import (
    E44,
    FINETUNED_ARMS as E44_FINETUNED,
    arms as _e44_arms,
    miner_has_own_index as _miner_has_own_index,
    model_dir as _e44_model_dir,
)

EVAL44B = config["eval44b"]
E44_SPLITS = ["train", "val", "test"]
# the release as package_44b stages it; publish_44b publishes it at eval44b.release (one folder, swapped in
# whole and not a Snakemake output, like the Doubting release: rules/package.smk)
E44_STAGED = f"{E44}/release"
EVAL44B_STAGED = {
    "test": f"{E44_STAGED}/test.jsonl",
    "results": f"{E44_STAGED}/results.jsonl",
    "ranks": f"{E44_STAGED}/ranks.jsonl",
    "manifest": f"{E44_STAGED}/manifest.json",
    "train_pairs": f"{E44_STAGED}/train_pairs.jsonl",
    "val_pairs": f"{E44_STAGED}/val_pairs.jsonl",
    "card": f"{E44_STAGED}/README.md",
    "croissant": f"{E44_STAGED}/croissant.json",
    "sums": f"{E44_STAGED}/SHA256SUMS",
}
# A miner with the retrieval section's settings searches the shared papers44b index (rules/retrieval.smk);
# one with its own settings gets an index of its own (rule index_44b_miner_<kind>).
E44_MINER_INDEX = {
    "bm25": (
        [f"{E44}/miners/bm25/{name}" for name in BM25_FILES]
        if _miner_has_own_index(config, "bm25")
        else bm25_index_files("papers44b")
    ),
    "dense": (
        [f"{E44}/miners/dense/{name}" for name in DENSE_FILES]
        if _miner_has_own_index(config, "dense")
        else dense_index_files("papers44b")
    ),
}
# The fine-tuned arms: trained by rule fine_tune_44b_<kind> into work/eval44b/models/<kind>/.
E44_MODEL_DIR = {kind: _e44_model_dir(kind) for kind in E44_FINETUNED.values()}
E44_MODEL_OUT = {kind: [f"{E44_MODEL_DIR[kind]}/{name}" for name in E44_MODEL_FILES[kind]] for kind in E44_MODEL_DIR}
# the scored arms: retrieval and fine-tuned arms, then cross-encoders, then the LLM
EVAL44B_ARMS = _e44_arms(config)
# an arm's retry state: the LLM arm's `retry` param goes up after a run that left retryable failures, so a
# plain rerun retries exactly its failed calls (irdata/annotate/common.py); no other arm writes one
E44_ARM_RETRY = f"{E44}/retry/score_arms/{{e44arm}}.json"
# a fine-tuned arm's inputs: its model's files and its training report
E44_ARM_MODEL = {
    arm: {"model": E44_MODEL_OUT[kind], "training": f"{E44_MODEL_DIR[kind]}.train.json"}
    for arm, kind in E44_FINETUNED.items()
}


wildcard_constraints:
    e44split="train|val|test",
    e44arm="|".join(re.escape(arm) for arm in EVAL44B_ARMS) or "none",


rule split_papers:
    input:
        raw_papers=EVAL44B["papers"],
        raw_reviews=EVAL44B["reviews"],
    output:
        collection=COLLECTIONS["papers44b"],
        papers=f"{E44}/papers.jsonl",
        reviews=f"{E44}/reviews.jsonl",
        report=f"{E44}/split.json",
    log:
        "logs/eval44b/split_papers.log",
    # Reads and checks the 44b inputs: first, like validate_msmarco_inputs.
    priority: 100
    conda:
        "../envs/eval44b.yaml"
    params:
        settings=stage_settings("split_papers"),
        code=stage_code("split_papers"),
    script:
        "../workflow_scripts/split_papers.py"


rule select_queries:
    input:
        reviews=rules.split_papers.output.reviews,
    output:
        **{split: f"{E44}/queries/{split}.jsonl" for split in E44_SPLITS},
        report=f"{E44}/queries/report.json",
    log:
        "logs/eval44b/select_queries.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        settings=stage_settings("select_queries"),
        code=stage_code("select_queries"),
    script:
        "../workflow_scripts/select_queries.py"


rule index_44b_miner_bm25:
    input:
        collection=STORES["papers44b"],
    output:
        index_files=[f"{E44}/miners/bm25/{name}" for name in BM25_FILES],
    log:
        "logs/eval44b/index_44b_miner.bm25.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        kind="bm25",
        settings=stage_settings("index_44b_miner_bm25"),
        code=stage_code("index_44b_miner_bm25"),
        index_dir=lambda wildcards, output: os.path.dirname(output[0]),
    script:
        "../workflow_scripts/index_44b_miner.py"


use rule index_44b_miner_bm25 as index_44b_miner_dense with:
    output:
        index_files=[f"{E44}/miners/dense/{name}" for name in DENSE_FILES],
    log:
        "logs/eval44b/index_44b_miner.dense.log",
    benchmark:
        "benchmarks/index_44b_miner/dense.tsv"
    threads: 2
    params:
        kind="dense",
        settings=stage_settings("index_44b_miner_dense"),
        code=stage_code("index_44b_miner_dense"),
        index_dir=lambda wildcards, output: os.path.dirname(output[0]),


rule mine_negatives:
    input:
        queries=f"{E44}/queries/{{e44split}}.jsonl",
        papers=rules.split_papers.output.papers,
        bm25_index=E44_MINER_INDEX["bm25"],
        dense_index=E44_MINER_INDEX["dense"],
    output:
        mined=f"{E44}/mined/{{e44split}}.jsonl",
        report=f"{E44}/mined/{{e44split}}.report.json",
    log:
        "logs/eval44b/mine_negatives.{e44split}.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        settings=stage_settings("mine_negatives"),
        code=stage_code("mine_negatives"),
        bm25=lambda wildcards, input: os.path.dirname(input.bm25_index[0]),
        dense=lambda wildcards, input: os.path.dirname(input.dense_index[0]),
    script:
        "../workflow_scripts/mine_negatives.py"


rule fine_tune_44b_cross_encoder:
    input:
        train_mined=f"{E44}/mined/train.jsonl",
        train_queries=f"{E44}/queries/train.jsonl",
        val_mined=f"{E44}/mined/val.jsonl",
        val_queries=f"{E44}/queries/val.jsonl",
        collection=rules.split_papers.output.collection,
    output:
        model=E44_MODEL_OUT["cross_encoder"],
        report=f"{E44_MODEL_DIR['cross_encoder']}.train.json",
    log:
        "logs/eval44b/fine_tune_44b.cross_encoder.log",
    benchmark:
        "benchmarks/fine_tune_44b/cross_encoder.tsv"
    conda:
        "../envs/eval44b.yaml"
    threads: EVAL44B["finetune"]["threads"]
    params:
        kind="cross_encoder",
        settings=stage_settings("fine_tune_44b_cross_encoder"),
        code=stage_code("fine_tune_44b_cross_encoder"),
        model_dir=lambda wildcards, output: os.path.dirname(output.model[0]),
    script:
        "../workflow_scripts/fine_tune_44b.py"


use rule fine_tune_44b_cross_encoder as fine_tune_44b_bi_encoder with:
    output:
        model=E44_MODEL_OUT["bi_encoder"],
        report=f"{E44_MODEL_DIR['bi_encoder']}.train.json",
    log:
        "logs/eval44b/fine_tune_44b.bi_encoder.log",
    benchmark:
        "benchmarks/fine_tune_44b/bi_encoder.tsv"
    params:
        kind="bi_encoder",
        settings=stage_settings("fine_tune_44b_bi_encoder"),
        code=stage_code("fine_tune_44b_bi_encoder"),
        model_dir=lambda wildcards, output: os.path.dirname(output.model[0]),


rule score_arms:
    input:
        unpack(stage_prompts("score_arms")),
        unpack(lambda wildcards: E44_ARM_MODEL.get(wildcards.e44arm, {})),
        mined=f"{E44}/mined/test.jsonl",
        queries=f"{E44}/queries/test.jsonl",
        collection=rules.split_papers.output.collection,
    output:
        result=f"{E44}/arms/{{e44arm}}.json",
    log:
        "logs/eval44b/score_arms.{e44arm}.log",
    conda:
        "../envs/llm.yaml"
    params:
        settings=stage_settings("score_arms"),
        code=stage_code("score_arms"),
        retry_state=lambda w: E44_ARM_RETRY.format(e44arm=w.e44arm),
        retry=lambda w: _retry_generation(E44_ARM_RETRY.format(e44arm=w.e44arm)),
    script:
        "../workflow_scripts/score_arms.py"


rule package_44b:
    input:
        **{f"mined_{split}": f"{E44}/mined/{split}.jsonl" for split in E44_SPLITS},
        **{f"report_{split}": f"{E44}/mined/{split}.report.json" for split in E44_SPLITS},
        raw_papers=EVAL44B["papers"],
        raw_reviews=EVAL44B["reviews"],
        papers=rules.split_papers.output.papers,
        split_report=rules.split_papers.output.report,
        queries_report=rules.select_queries.output.report,
        arms=expand(f"{E44}/arms/{{arm}}.json", arm=EVAL44B_ARMS),
    output:
        **EVAL44B_STAGED,
    log:
        "logs/eval44b/package_44b.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        settings=stage_settings("package_44b"),
        code=stage_code("package_44b"),
    script:
        "../workflow_scripts/package_44b.py"


rule publish_44b:
    input:
        staged_files=list(EVAL44B_STAGED.values()),
    output:
        record=f"{E44}/published.json",
    log:
        "logs/eval44b/publish_44b.log",
    conda:
        "../envs/core.yaml"
    params:
        settings=stage_settings("publish_44b"),
        code=stage_code("publish_44b"),
        staged=lambda wildcards, input: str(Path(input.staged_files[-1]).parent),
    script:
        "../workflow_scripts/publish_44b.py"
