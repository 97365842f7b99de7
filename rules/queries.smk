# Doubting, first stages of every build: validate the raw inputs, dedup train queries, shard queries.

# The raw inputs a build names are in its input check's settings (irdata/sources/), so that naming other inputs
# reruns the check, and stage_release checks them against the check's record (checked.json).
DOUBTING_INPUTS_CHECKED = build_file("inputs_checked")

# One input check per source format (doubting.source.format, irdata/sources/), each writing the same checked files
# (and the train and dev query files where its source reads no query files as named); each build's check is the
# rule of its format. Input checks run before anything else, so bad input fails before an expensive job starts. Each
# runs its source's own script, which imports that source alone (its code identity holds no other source's code).
# The rule is declared in a function (input_check_rule, rules/common.smk): Snakemake evaluates a `script:` path again
# when the job runs, which in a loop would be the loop's last source, and in a function is the call's own.
for _source in INPUT_SOURCES.values():
    input_check_rule(_source)


rule dedup_train_queries:
    input:
        validated=DOUBTING_INPUTS_REPORT,
        train_queries=queries("train"),
        dev_queries=queries("dev"),
        heldout_queries=DOUBTING_CHECKED["heldout_queries"],
    output:
        **DOUBTING_IDS,
        report=build_file("dedup_report"),
    log:
        logs("dedup_train_queries/{build}.log"),
    benchmark:
        benchmarks("dedup_train_queries/{build}.tsv")
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("dedup_train_queries"),
    script:
        "../workflow_scripts/dedup_train_queries.py"


# A build whose splits list acquisition batches: their id files against the build's queries, before any
# annotation (an id of no query, a file of the other split: irdata/doubting/acquisition_batches.py)
rule check_acquisition_batches:
    input:
        train_queries=queries("train"),
        dev_queries=queries("dev"),
        batch_files=batch_files,
    output:
        checked=build_file("acquisition_batches"),
    log:
        logs("check_acquisition_batches/{build}.log"),
    benchmark:
        benchmarks("check_acquisition_batches/{build}.tsv")
    wildcard_constraints:
        build=builds_where(lambda doubting: _doubting.batch_files(doubting["acquisition_batches"])),
    # as the input checks: bad input fails before an expensive job starts
    priority: 100
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("check_acquisition_batches"),
    script:
        "../workflow_scripts/check_acquisition_batches.py"


# One rule per build: the number of shard files a build's check writes is its own (doubting.shards). A
# profile keys on rule names, so each takes its SLURM settings here (profiles/slurm: a first stage, group prep).
for _build in BUILDS:

    rule:
        name:
            f"shard_queries_{_build}"
        input:
            train=build_file("train_collection", _build),
            dev=build_file("dev_all", _build),
        output:
            train_shards=shard_paths(_build, "train"),
            dev_shards=shard_paths(_build, "dev"),
        log:
            logs(f"shard_queries/{_build}.log"),
        benchmark:
            benchmarks(f"shard_queries/{_build}.tsv")
        group:
            "prep"
        conda:
            "../envs/core.yaml"
        threads: 1
        resources:
            mem_mb=1000,
            runtime=10,
        params:
            **stage_params("shard_queries", build=_build),
        script:
            "../workflow_scripts/shard_queries.py"


# `snakemake shard_queries`: the shards of every build
rule shard_queries:
    input:
        [shard_paths(build, split) for build in BUILDS for split in ("train", "dev")],
