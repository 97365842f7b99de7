# 44b Eval (spec/44b-eval.card.txt): paper-disjoint split, review queries, screened hard negatives,
# scored arms, release files. Logic in workflow_scripts/irdata/eval44b/; what each rule reads is its
# Stage (irdata/eval44b/stages.py).
import re

from irdata.eval44b import wiring as _e44
from irdata.eval44b.split import SPLITS as E44_SPLITS
from irdata.eval44b.stages import arms as _e44_arms

EVAL44B = config["eval44b"]
# the release as package_44b stages it and checks against its release ledger; publish_44b publishes it at
# eval44b.release under its version (one folder, swapped in whole and not a Snakemake output, an older version kept
# beside it, like the Doubting release: rules/package.smk)
EVAL44B_STAGED = _e44.staged_release()
# the scored arms: retrieval and fine-tuned arms, then cross-encoders, then the LLM
EVAL44B_ARMS = _e44_arms(config)
# what the release's code means, as manifest.json records it: the release's version is frozen with it
# (irdata/frozen.py); computed once, a param of package_44b
EVAL44B_CODE = _e44.code_record(workflow.basedir, config)


wildcard_constraints:
    e44split="|".join(E44_SPLITS),
    e44arm="|".join(re.escape(arm) for arm in EVAL44B_ARMS) or "none",


rule split_papers:
    input:
        raw_papers=EVAL44B["papers"],
        raw_reviews=EVAL44B["reviews"],
    output:
        collection=eval44b_file("collection"),
        papers=eval44b_file("papers"),
        reviews=eval44b_file("reviews"),
        report=eval44b_file("split"),
    log:
        logs("eval44b/split_papers.log"),
    benchmark:
        benchmarks("split_papers.tsv")
    # Reads and checks the 44b inputs: first, like validate_msmarco_inputs.
    priority: 100
    conda:
        "../envs/eval44b.yaml"
    params:
        **stage_params("split_papers"),
    script:
        "../workflow_scripts/split_papers.py"


rule select_queries:
    input:
        reviews=rules.split_papers.output.reviews,
    output:
        **_e44.query_files(E44_SPLITS),
        report=eval44b_file("queries_report"),
    log:
        logs("eval44b/select_queries.log"),
    benchmark:
        benchmarks("select_queries.tsv")
    conda:
        "../envs/eval44b.yaml"
    params:
        **stage_params("select_queries"),
    script:
        "../workflow_scripts/select_queries.py"


rule index_44b_miner_bm25:
    input:
        collection=STORES[PAPERS44B],
    output:
        index_files=_e44.miner_own_index_files("bm25"),
    log:
        logs("eval44b/index_44b_miner.bm25.log"),
    benchmark:
        benchmarks("index_44b_miner/bm25.tsv")
    conda:
        "../envs/eval44b.yaml"
    params:
        **stage_params("index_44b_miner_bm25"),
        kind="bm25",
        index_dir=output_folder(),
    script:
        "../workflow_scripts/index_44b_miner.py"


use rule index_44b_miner_bm25 as index_44b_miner_dense with:
    output:
        index_files=_e44.miner_own_index_files("dense"),
    log:
        logs("eval44b/index_44b_miner.dense.log"),
    benchmark:
        benchmarks("index_44b_miner/dense.tsv")
    threads: 2
    params:
        **stage_params("index_44b_miner_dense"),
        kind="dense",


rule mine_negatives:
    input:
        queries=eval44b_queries(),
        papers=rules.split_papers.output.papers,
        bm25_index=_e44.miner_index_files(config, "bm25"),
        dense_index=_e44.miner_index_files(config, "dense"),
    output:
        mined=eval44b_mined(),
        report=eval44b_mined(report=True),
    log:
        logs("eval44b/mine_negatives.{e44split}.log"),
    benchmark:
        benchmarks("mine_negatives/{e44split}.tsv")
    conda:
        "../envs/eval44b.yaml"
    params:
        **stage_params("mine_negatives"),
        bm25=input_folder("bm25_index"),
        dense=input_folder("dense_index"),
    script:
        "../workflow_scripts/mine_negatives.py"


rule fine_tune_44b_cross_encoder:
    input:
        train_mined=eval44b_mined("train"),
        train_queries=eval44b_queries("train"),
        val_mined=eval44b_mined("val"),
        val_queries=eval44b_queries("val"),
        collection=rules.split_papers.output.collection,
    output:
        model=_e44.model_files("cross_encoder"),
        report=_e44.training_report("cross_encoder"),
    log:
        logs("eval44b/fine_tune_44b.cross_encoder.log"),
    benchmark:
        benchmarks("fine_tune_44b/cross_encoder.tsv")
    conda:
        "../envs/eval44b.yaml"
    threads: EVAL44B["finetune"]["threads"]
    params:
        **stage_params("fine_tune_44b_cross_encoder"),
        kind="cross_encoder",
        model_dir=output_folder("model"),
    script:
        "../workflow_scripts/fine_tune_44b.py"


use rule fine_tune_44b_cross_encoder as fine_tune_44b_bi_encoder with:
    output:
        model=_e44.model_files("bi_encoder"),
        report=_e44.training_report("bi_encoder"),
    log:
        logs("eval44b/fine_tune_44b.bi_encoder.log"),
    benchmark:
        benchmarks("fine_tune_44b/bi_encoder.tsv")
    params:
        **stage_params("fine_tune_44b_bi_encoder"),
        kind="bi_encoder",


rule score_arms:
    input:
        unpack(stage_prompts("score_arms")),
        unpack(lambda wildcards: _e44.arm_model_inputs(wildcards.e44arm)),
        mined=eval44b_mined("test"),
        queries=eval44b_queries("test"),
        collection=rules.split_papers.output.collection,
    output:
        result=eval44b_arm(),
    log:
        logs("eval44b/score_arms.{e44arm}.log"),
    benchmark:
        benchmarks("score_arms/{e44arm}.tsv")
    conda:
        "../envs/llm.yaml"
    params:
        **stage_params("score_arms"),
    script:
        "../workflow_scripts/score_arms.py"


rule package_44b:
    input:
        **_e44.mined_files(E44_SPLITS),
        raw_papers=EVAL44B["papers"],
        raw_reviews=EVAL44B["reviews"],
        papers=rules.split_papers.output.papers,
        split_report=rules.split_papers.output.report,
        queries_report=rules.select_queries.output.report,
        arms=[eval44b_arm(arm) for arm in EVAL44B_ARMS],
    output:
        **EVAL44B_STAGED,
    log:
        logs("eval44b/package_44b.log"),
    benchmark:
        benchmarks("package_44b.tsv")
    conda:
        "../envs/eval44b.yaml"
    params:
        **stage_params("package_44b"),
        release_code=EVAL44B_CODE,
    script:
        "../workflow_scripts/package_44b.py"


rule publish_44b:
    input:
        staged_files=list(EVAL44B_STAGED.values()),
    output:
        record=eval44b_file("published"),
    log:
        logs("eval44b/publish_44b.log"),
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("publish_44b"),
        staged=lambda wildcards, input: str(Path(input.staged_files[-1]).parent),
    script:
        "../workflow_scripts/publish_44b.py"
