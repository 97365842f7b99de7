# 44b Eval (spec/44b-eval.card.txt): paper-disjoint split, review queries, screened hard negatives,
# scored arms, release files. Logic in workflow_scripts/irdata/eval44b/.
import re

from irdata.eval44b.finetune import MODEL_FILES as E44_MODEL_FILES

EVAL44B = config["eval44b"]
E44 = f"{WORK}/eval44b"
E44_SPLITS = ["train", "val", "test"]
EVAL44B_RELEASE = {
    "test": f"{EVAL44B['release']}/test.jsonl",
    "results": f"{EVAL44B['release']}/results.jsonl",
    "manifest": f"{EVAL44B['release']}/manifest.json",
    "train_pairs": f"{EVAL44B['release']}/train_pairs.jsonl",
    "val_pairs": f"{EVAL44B['release']}/val_pairs.jsonl",
    "card": f"{EVAL44B['release']}/README.md",
    "croissant": f"{EVAL44B['release']}/croissant.json",
    "sums": f"{EVAL44B['release']}/SHA256SUMS",
}
EVAL44B_SPLIT_SETTINGS = {k: EVAL44B[k] for k in ("format", "salt", "key_format", "split")}

E44_RETRIEVAL = config["retrieval"]
EVAL44B_MINING = EVAL44B["mining"]
EVAL44B_FINETUNE = EVAL44B["finetune"]
# The miners search with eval44b.mining.bm25 / .dense over the retrieval section's settings: by
# default the same BM25 and dense model as the arms score with (the card mined with other ones).
E44_MINING_SEARCH = {
    "bm25": {**E44_RETRIEVAL["bm25"], **EVAL44B_MINING["bm25"]},
    "dense": {**E44_RETRIEVAL["dense"], **EVAL44B_MINING["dense"]},
}
# A miner whose settings are the retrieval section's searches the shared papers44b index (rules/
# retrieval.smk); one with its own settings gets an index of its own (rule index_44b_miner).
E44_MINER_INDEX = {
    "bm25": (
        bm25_index_files("papers44b")
        if E44_MINING_SEARCH["bm25"] == E44_RETRIEVAL["bm25"]
        else [f"{E44}/miners/bm25/{name}" for name in BM25_FILES]
    ),
    "dense": (
        dense_index_files("papers44b")
        if E44_MINING_SEARCH["dense"] == E44_RETRIEVAL["dense"]
        else [f"{E44}/miners/dense/{name}" for name in DENSE_FILES]
    ),
}
# what the miners' results depend on (the indexes themselves are inputs)
E44_SEARCH = {
    "bm25": E44_MINING_SEARCH["bm25"],
    "dense": {k: E44_MINING_SEARCH["dense"][k] for k in ("model", "normalize", "max_seq_length", "ef_search")},
}
EVAL44B_SCORING = {
    **{k: v for k, v in EVAL44B["scoring"].items() if k != "arms"},
    "negatives": EVAL44B_MINING["negatives"],
    "retrieval": {"bm25": E44_RETRIEVAL["bm25"], "dense": E44_RETRIEVAL["dense"]},
    "rrf_k": E44_RETRIEVAL["rrf_k"],
}
E44_ARM_COMMON = {
    k: EVAL44B_SCORING[k] for k in ("query_chars", "document_chars", "seed", "negatives", "record_timing")
}

# The fine-tuned arms: trained by rule fine_tune_44b_<kind> into work/eval44b/models/<kind>/.
E44_FINETUNED = {"finetuned_cross_encoder": "cross_encoder", "finetuned_bi_encoder": "bi_encoder"}


E44_MODEL_DIR = {kind: f"{E44}/models/{kind}" for kind in E44_FINETUNED.values()}
E44_MODEL_OUT = {kind: [f"{E44_MODEL_DIR[kind]}/{name}" for name in E44_MODEL_FILES[kind]] for kind in E44_MODEL_DIR}
# what a fine-tune reads: the shared keys and its kind's own section
E44_FINETUNE_SETTINGS = {
    kind: {**{k: v for k, v in EVAL44B_FINETUNE.items() if k not in E44_MODEL_DIR}, **EVAL44B_FINETUNE[kind]}
    for kind in E44_MODEL_DIR
}


# the scored arms: retrieval and fine-tuned arms, then cross-encoders, then the LLM
EVAL44B_ARMS = (
    list(EVAL44B["scoring"]["arms"])
    + [f"cross_encoder-{spec['name']}" for spec in EVAL44B["scoring"]["cross_encoders"]]
    + (["llm"] if EVAL44B["scoring"]["llm"]["enabled"] else [])
)
# Each arm's settings param holds everything it reads; the LLM arm's holds the LLM settings that change
# answers, and it reads only the connection settings (servers, timeouts) from the config.
ARM44B_PROMPT = "prompts/grade_44b_pair.txt"
E44_ARM_PROMPTS = {"llm": [ARM44B_PROMPT]}
# what each arm reads (its params): its kind (arms.ARMS) and its models' settings, so changing one
# arm's settings reruns only that arm
E44_ARM_OWN = {
    "random": {"kind": "random"},
    "bm25": {"kind": "bm25", "bm25": E44_RETRIEVAL["bm25"]},
    "dense": {"kind": "dense", "dense": E44_RETRIEVAL["dense"]},
    "hybrid_rrf": {
        "kind": "hybrid_rrf",
        "bm25": E44_RETRIEVAL["bm25"],
        "dense": E44_RETRIEVAL["dense"],
        "rrf_k": E44_RETRIEVAL["rrf_k"],
    },
    "finetuned_cross_encoder": {
        "kind": "cross_encoder",
        "cross_encoder": {
            "model": E44_MODEL_DIR["cross_encoder"],
            "max_length": EVAL44B_FINETUNE["cross_encoder"]["max_length"],
            "batch_size": EVAL44B_FINETUNE["batch_size"],
        },
    },
    "finetuned_bi_encoder": {
        "kind": "dense",
        "dense": {
            **E44_RETRIEVAL["dense"],
            "model": E44_MODEL_DIR["bi_encoder"],
            "max_seq_length": EVAL44B_FINETUNE["bi_encoder"]["max_length"],
            "batch_size": EVAL44B_FINETUNE["batch_size"],
        },
    },
    "llm": {
        "kind": "llm",
        "llm": EVAL44B["scoring"]["llm"],
        "llm_answer": llm_answer_settings("arm44b"),
        "prompt": workflow_file(ARM44B_PROMPT),
    },
    **{
        f"cross_encoder-{spec['name']}": {"kind": "cross_encoder", "cross_encoder": spec}
        for spec in EVAL44B["scoring"]["cross_encoders"]
    },
}
EVAL44B_ARM_SETTINGS = {arm: {**E44_ARM_COMMON, **E44_ARM_OWN[arm]} for arm in EVAL44B_ARMS}
E44_PACKAGE_SETTINGS = {
    "split": EVAL44B["split"],
    "unresolvable_schemes": EVAL44B["unresolvable_schemes"],
    "mining_recipe": EVAL44B_MINING,
    "mining_search": E44_MINING_SEARCH,
    "scoring": EVAL44B_SCORING,
    "arms": EVAL44B_ARM_SETTINGS,
}


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
        papers=EVAL44B["papers"],
        reviews=EVAL44B["reviews"],
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
        code=code_hash("workflow_scripts/split_papers.py", settings=EVAL44B_SPLIT_SETTINGS),
        settings=EVAL44B_SPLIT_SETTINGS,
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
        code=code_hash("workflow_scripts/select_queries.py", settings=EVAL44B["min_query_chars"]),
        min_chars=EVAL44B["min_query_chars"],
    script:
        "../workflow_scripts/select_queries.py"


rule index_44b_miner_bm25:
    input:
        collection=STORES["papers44b"],
    output:
        [f"{E44}/miners/bm25/{name}" for name in BM25_FILES],
    log:
        "logs/eval44b/index_44b_miner.bm25.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        kind="bm25",
        code=code_hash("workflow_scripts/index_44b_miner.py", settings=E44_MINING_SEARCH["bm25"]),
        settings=E44_MINING_SEARCH["bm25"],
        index_dir=lambda wildcards, output: os.path.dirname(output[0]),
    script:
        "../workflow_scripts/index_44b_miner.py"


use rule index_44b_miner_bm25 as index_44b_miner_dense with:
    output:
        [f"{E44}/miners/dense/{name}" for name in DENSE_FILES],
    log:
        "logs/eval44b/index_44b_miner.dense.log",
    benchmark:
        "benchmarks/index_44b_miner/dense.tsv"
    threads: 2
    params:
        kind="dense",
        code=code_hash("workflow_scripts/index_44b_miner.py", settings=E44_MINING_SEARCH["dense"]),
        settings=E44_MINING_SEARCH["dense"],
        index_dir=lambda wildcards, output: os.path.dirname(output[0]),


rule mine_negatives:
    input:
        queries=f"{E44}/queries/{{e44split}}.jsonl",
        papers=rules.split_papers.output.papers,
        bm25=E44_MINER_INDEX["bm25"],
        dense=E44_MINER_INDEX["dense"],
    output:
        mined=f"{E44}/mined/{{e44split}}.jsonl",
        report=f"{E44}/mined/{{e44split}}.report.json",
    log:
        "logs/eval44b/mine_negatives.{e44split}.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        code=code_hash("workflow_scripts/mine_negatives.py", settings=[EVAL44B_MINING, E44_SEARCH]),
        settings=EVAL44B_MINING,
        search=E44_MINING_SEARCH,
        bm25=lambda wildcards, input: os.path.dirname(input.bm25[0]),
        dense=lambda wildcards, input: os.path.dirname(input.dense[0]),
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
    threads: EVAL44B_FINETUNE["threads"]
    params:
        kind="cross_encoder",
        code=code_hash(
            "workflow_scripts/fine_tune_44b.py", settings=[E44_FINETUNE_SETTINGS["cross_encoder"], E44_ARM_COMMON]
        ),
        settings=E44_FINETUNE_SETTINGS["cross_encoder"],
        scoring=E44_ARM_COMMON,
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
        code=code_hash(
            "workflow_scripts/fine_tune_44b.py", settings=[E44_FINETUNE_SETTINGS["bi_encoder"], E44_ARM_COMMON]
        ),
        settings=E44_FINETUNE_SETTINGS["bi_encoder"],
        scoring=E44_ARM_COMMON,
        model_dir=lambda wildcards, output: os.path.dirname(output.model[0]),


rule score_arms:
    input:
        unpack(lambda wildcards: E44_ARM_MODEL.get(wildcards.e44arm, {})),
        mined=f"{E44}/mined/test.jsonl",
        queries=f"{E44}/queries/test.jsonl",
        collection=rules.split_papers.output.collection,
    output:
        f"{E44}/arms/{{e44arm}}.json",
    log:
        "logs/eval44b/score_arms.{e44arm}.log",
    conda:
        "../envs/llm.yaml"
    params:
        code=lambda wildcards: code_hash(
            "workflow_scripts/score_arms.py", prompts=E44_ARM_PROMPTS.get(wildcards.e44arm, [])
        ),
        settings=lambda wildcards: EVAL44B_ARM_SETTINGS[wildcards.e44arm],
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
        **EVAL44B_RELEASE,
    log:
        "logs/eval44b/package_44b.log",
    conda:
        "../envs/eval44b.yaml"
    params:
        code=code_hash("workflow_scripts/package_44b.py", settings=E44_PACKAGE_SETTINGS),
        settings=E44_PACKAGE_SETTINGS,
    script:
        "../workflow_scripts/package_44b.py"
