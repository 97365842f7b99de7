# Doubting MS MARCO, first stages: validate the raw inputs, dedup train queries, shard queries.

from irdata.beir_inputs import source_input_paths as _source_input_paths
from irdata.msmarco_inputs import checked_record_name as _checked_record_name

# The raw input files the config names are in the input check's settings (irdata/msmarco_inputs.py,
# irdata/beir_inputs.py). The check's record of them is named by their paths: Snakemake takes an existing
# output whose producer lacks its inputs for a source file, so a release (stage_release, package, the
# doubting target) needs this record, which does not exist for other input paths: a production overlay in a
# demo checkout plans the check again, and the dry-run names the missing inputs.
DOUBTING_RAW_INPUTS = _source_input_paths(config)
DOUBTING_INPUTS_CHECKED = f"{WORK}/doubting/inputs/{_checked_record_name(DOUBTING_RAW_INPUTS)}"


# One input check per source format (doubting.source.format), each writing the same checked files.
if BEIR:

    rule validate_beir_inputs:
        input:
            raw_inputs=DOUBTING_RAW_INPUTS,
        output:
            **DOUBTING_CHECKED,
            train_queries=QUERIES["train"],
            dev_queries=QUERIES["dev"],
            heldout_queries=QUERIES["heldout"][0],
            report=DOUBTING_INPUTS_REPORT,
            checked=DOUBTING_INPUTS_CHECKED,
            store=STORES["msmarco"],  # the corpus, with its titles, as the passage store
        log:
            "logs/validate_beir_inputs.log",
        benchmark:
            "benchmarks/validate_beir_inputs.tsv"
        priority: 100
        conda:
            "../envs/core.yaml"
        params:
            **stage_params("validate_beir_inputs"),
        script:
            "../workflow_scripts/validate_beir_inputs.py"

else:

    rule validate_msmarco_inputs:
        input:
            collection=DOUBTING["collection"],
            train_queries=DOUBTING["train_queries"],
            raw_train_qrels=DOUBTING["train_qrels"],
            dev_queries=DOUBTING["dev_queries"],
            raw_dev_qrels=DOUBTING["dev_qrels"],
            raw_dev_answers=DOUBTING["dev_answers"],
            heldout_queries=DOUBTING["heldout_queries"],
        output:
            **DOUBTING_CHECKED,
            report=DOUBTING_INPUTS_REPORT,
            checked=DOUBTING_INPUTS_CHECKED,
            store=STORES["msmarco"],  # the collection as the passage store every later stage reads
        log:
            "logs/validate_msmarco_inputs.log",
        benchmark:
            "benchmarks/validate_msmarco_inputs.tsv"
        # Input checks run before anything else, so bad input fails before an expensive job starts.
        priority: 100
        conda:
            "../envs/core.yaml"
        params:
            **stage_params("validate_msmarco_inputs"),
        script:
            "../workflow_scripts/validate_msmarco_inputs.py"


rule dedup_train_queries:
    input:
        validated=DOUBTING_INPUTS_REPORT,
        train_queries=QUERIES["train"],
        dev_queries=QUERIES["dev"],
        heldout_queries=QUERIES["heldout"],
    output:
        **DOUBTING_IDS,
    log:
        "logs/dedup_train_queries.log",
    benchmark:
        "benchmarks/dedup_train_queries.tsv"
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("dedup_train_queries"),
    script:
        "../workflow_scripts/dedup_train_queries.py"


rule shard_queries:
    input:
        train=DOUBTING_IDS["train_collection"],
        dev=DOUBTING_IDS["dev_all"],
    output:
        train_shards=shard_paths("train"),
        dev_shards=shard_paths("dev"),
    log:
        "logs/shard_queries.log",
    benchmark:
        "benchmarks/shard_queries.tsv"
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("shard_queries"),
    script:
        "../workflow_scripts/shard_queries.py"
