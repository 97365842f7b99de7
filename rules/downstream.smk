# Doubting, the downstream comparison of each build (irdata/downstream/): from each base model, a bi-encoder trained
# on the release's positives and one on the official positives of the same queries (same hard negatives, seed,
# steps, batch, loss), then the base and both trained models evaluated zero-shot by full retrieval; the result
# goes into MANIFEST.json, the card and the report. Switched off by doubting.downstream.enabled: false.


wildcard_constraints:
    dsbase="|".join(re.escape(b) for b in DS_BASES),
    dsarm="|".join(_DS_ARMS),
    dsmodel="|".join(_DS_MODELS),
    dscoll="|".join(re.escape(c) for c in DS_COLLECTIONS),


rule downstream_training_set:
    input:
        train_queries=f"{DOUBTING_ASSEMBLED}/{_DS_DATA_FILES['train_queries', 'train']}",
        qrels_train=f"{DOUBTING_ASSEMBLED}/{_DS_DATA_FILES['qrels', 'train']}",
        judgments_train=f"{DOUBTING_ASSEMBLED}/{_DS_DATA_FILES['judgments', 'train']}",
        official_qrels=DOUBTING_CHECKED["train_qrels"],
        queries=queries("train"),
        bm25=bm25_index_files("{build}"),
        dense=dense_index_files("{build}"),
    output:
        rows=downstream_file("training.jsonl"),
        report=downstream_file("training.json"),
    log:
        logs("downstream/training_set/{build}.log"),
    benchmark:
        benchmarks("downstream/training_set/{build}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: 2
    params:
        **stage_params("downstream_training_set"),
        bm25_dir=input_folder("bm25"),
        dense_dir=input_folder("dense"),
    script:
        "../workflow_scripts/downstream_training_set.py"


rule downstream_train:
    input:
        rows=rules.downstream_training_set.output.rows,
        queries=queries("train"),
        store=BUILD_STORE,
    output:
        model=_ds.model_files("{dsbase}", "{dsarm}"),
        report=_ds.training_report("{dsbase}", "{dsarm}"),
    log:
        logs("downstream/train/{build}/{dsbase}.{dsarm}.log"),
    benchmark:
        benchmarks("downstream/train/{build}/{dsbase}.{dsarm}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: lambda wildcards: build_doubting(wildcards)["downstream"]["threads"]
    params:
        **stage_params("downstream_train"),
        model_dir=output_folder("model"),
    script:
        "../workflow_scripts/downstream_train.py"


rule downstream_beir_inputs:
    input:
        unpack(ds_beir_files),
    output:
        store=downstream_beir(name="passages.arrow"),
        judged_queries=downstream_beir(name="queries.tsv"),
        judged_qrels=downstream_beir(name="qrels.trec"),
        report=downstream_beir(name="inputs.json"),
    log:
        logs("downstream/beir_inputs/{build}/{dscoll}.log"),
    benchmark:
        benchmarks("downstream/beir_inputs/{build}/{dscoll}.tsv")
    conda:
        "../envs/retrieval.yaml"
    params:
        **stage_params("downstream_beir_inputs"),
    script:
        "../workflow_scripts/downstream_beir_inputs.py"


rule downstream_encode:
    input:
        unpack(ds_model_inputs),
        store=ds_store,
    output:
        embeddings=downstream_encoded(ext="npy"),
        meta=downstream_encoded(ext="json"),
    log:
        logs("downstream/encode/{build}/{dsbase}.{dsmodel}.{dscoll}.{shard}.log"),
    benchmark:
        benchmarks("downstream/encode/{build}/{dsbase}.{dsmodel}.{dscoll}.{shard}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: lambda wildcards: build_doubting(wildcards)["downstream"]["threads"]
    params:
        **stage_params("downstream_encode"),
        shards=ds_shard_count,
    script:
        "../workflow_scripts/downstream_encode.py"


rule downstream_evaluate:
    input:
        unpack(ds_evaluate_inputs),
        store=ds_store,
        embeddings=lambda wildcards: ds_encoded(wildcards, "npy"),
        meta=lambda wildcards: ds_encoded(wildcards, "json"),
    output:
        result=downstream_evaluation(),
    log:
        logs("downstream/evaluate/{build}/{dsbase}.{dsmodel}.{dscoll}.log"),
    benchmark:
        benchmarks("downstream/evaluate/{build}/{dsbase}.{dsmodel}.{dscoll}.tsv")
    conda:
        "../envs/retrieval.yaml"
    threads: lambda wildcards: build_doubting(wildcards)["downstream"]["threads"]
    params:
        **stage_params("downstream_evaluate"),
        qrels_sets=ds_qrels_grades,
    script:
        "../workflow_scripts/downstream_evaluate.py"


rule downstream_compare:
    input:
        training_set=rules.downstream_training_set.output.report,
        training_reports=lambda wildcards: [
            _ds.training_report(b, a) for b, a in _ds.trainings(build_config(wildcards))
        ],
        evaluation_results=lambda wildcards: [
            downstream_evaluation(b, m, c) for b, m, c in _ds.evaluations(build_config(wildcards))
        ],
    output:
        result=DS_RESULT,
    log:
        logs("downstream/compare/{build}.log"),
    benchmark:
        benchmarks("downstream/compare/{build}.tsv")
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("downstream_compare"),
        evaluations=lambda wildcards: _ds.evaluations(build_config(wildcards)),
        trainings=lambda wildcards: _ds.trainings(build_config(wildcards)),
    script:
        "../workflow_scripts/downstream_compare.py"
