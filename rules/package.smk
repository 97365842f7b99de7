# Doubting MS MARCO, last stages: assemble the per-shard LLM stage outputs into the release configs
# (assemble), check the LLM failures against their limits (release_gate), run the BM25 baseline of the
# dev queries for examples/ (bm25_dev_run), build the release in a staging folder and check it against
# the release ledger (stage_release), then publish it (package).
# The published folder is not a Snakemake output: `package` replaces it atomically and its output is a
# record under work/, so Snakemake deletes nothing of a release before a rerun and leaves no file of
# its own in the folder, which holds exactly what SHA256SUMS lists. A deleted folder is published again
# from the staged release with -R package. Formats of the per-shard files: workflow_scripts/irdata/shard_files.py.

from irdata.doubting.assemble import assembled_files as _assembled_files
from irdata.doubting.manifest import code_files as _code_files
from irdata.doubting.package import release_files as _release_files
from irdata.doubting.human_audit import sheet_inputs as _human_audit_sheet_inputs
from irdata.doubting import wiring as _doubting

DOUBTING_ASSEMBLED = f"{WORK}/doubting/assembled"
DOUBTING_STAGED = f"{WORK}/doubting/release"
DOUBTING_FAILURES = f"{WORK}/doubting/failures.json"
DOUBTING_PUBLISHED = f"{WORK}/doubting/published.json"
DOUBTING_BATCHES = DOUBTING["acquisition_batches"]
# what the blinded human audit draws from: the dev or the train queries (doubting.audit.human.split)
HUMAN_AUDIT_SHEET_INPUTS = _human_audit_sheet_inputs(
    DOUBTING["audit"]["human"]["split"], DOUBTING_ASSEMBLED, DOUBTING_CHECKED, QUERIES
)
# the per-shard LLM rules (the audit, when configured, is one job of its own)
_LLM_RULES = _doubting.llm_rules()
DOUBTING_AUDIT_STATS = f"{WORK}/doubting/stats/audit_labels/audit.json"
# code, prompt, env and schema files whose sha256 MANIFEST.json records (irdata.doubting.manifest)
DOUBTING_PROMPTS = _doubting.prompt_paths(STAGE, _LLM_RULES)
DOUBTING_CODE_FILES = _code_files(workflow.basedir, DOUBTING_PROMPTS)
# the stats file of every LLM job, by rule and split (the release gate's inputs)
LLM_JOB_STATS = _doubting.llm_job_stats(
    shard_paths, _LLM_RULES, DOUBTING_AUDIT_STATS if DOUBTING["audit"]["qrels"] else None
)

if DOUBTING["audit"]["qrels"]:

    rule audit_labels:
        input:
            unpack(stage_prompts("audit_labels")),
            qrels=DOUBTING["audit"]["qrels"],
            queries=DOUBTING["audit"]["queries"],
            collection=STORES["msmarco"],
        output:
            grades=f"{WORK}/doubting/audit/grades.parquet",
            audit=DOUBTING_AUDIT,
            stats=DOUBTING_AUDIT_STATS,
        log:
            "logs/audit_labels.log",
        benchmark:
            "benchmarks/audit_labels.tsv"
        conda:
            "../envs/llm.yaml"
        resources:
            llm_slots=1,
        params:
            **stage_params("audit_labels"),
        script:
            "../workflow_scripts/audit_labels.py"

    # the workflow's own runs over the judged audit queries
    rule audit_runs:
        input:
            qrels=DOUBTING["audit"]["qrels"],
            queries=DOUBTING["audit"]["queries"],
            bm25=bm25_index_files("msmarco"),
            dense=dense_index_files("msmarco"),
        output:
            **{f"{name}_run": path for name, path in DOUBTING_AUDIT_RUNS.items()},
        log:
            "logs/audit_runs.log",
        benchmark:
            "benchmarks/audit_runs.tsv"
        conda:
            "../envs/retrieval.yaml"
        threads: 2
        params:
            **stage_params("audit_runs"),
            bm25_dir=input_folder("bm25"),
            dense_dir=input_folder("dense"),
        script:
            "../workflow_scripts/audit_runs.py"

    # do the model's grades order the runs as the human grades do?
    rule audit_ranking:
        input:
            **DOUBTING_AUDIT_RUNS,
            grades=rules.audit_labels.output.grades,
            runs=_audit_run_files(DOUBTING["audit"]["runs"]),
        output:
            ranking=DOUBTING_AUDIT_RANKING,
        log:
            "logs/audit_ranking.log",
        benchmark:
            "benchmarks/audit_ranking.tsv"
        conda:
            "../envs/retrieval.yaml"
        params:
            **stage_params("audit_ranking"),
        script:
            "../workflow_scripts/audit_ranking.py"


if DOUBTING_HUMAN_AUDIT:

    # the blinded sheet: strict and official positives of a sample of dev queries, origins hidden
    rule human_audit_sheet:
        input:
            **HUMAN_AUDIT_SHEET_INPUTS,
            collection=STORES["msmarco"],
        output:
            sheet=f"{WORK}/doubting/human_audit/sheet.csv",
            label_studio=f"{WORK}/doubting/human_audit/sheet.labelstudio.json",
            key=f"{WORK}/doubting/human_audit/key.json",
        log:
            "logs/human_audit_sheet.log",
        benchmark:
            "benchmarks/human_audit_sheet.tsv"
        conda:
            "../envs/core.yaml"
        params:
            **stage_params("human_audit_sheet"),
        script:
            "../workflow_scripts/human_audit_sheet.py"

    # the filled sheets read back against the key
    rule human_audit_results:
        input:
            key=rules.human_audit_sheet.output.key,
            sheets=DOUBTING["audit"]["human"]["sheets"],
            queries=HUMAN_AUDIT_SHEET_INPUTS["queries"],
            collection=STORES["msmarco"],
        output:
            results=DOUBTING_HUMAN_AUDIT,
        log:
            "logs/human_audit_results.log",
        benchmark:
            "benchmarks/human_audit_results.tsv"
        conda:
            "../envs/core.yaml"
        params:
            **stage_params("human_audit_results"),
        script:
            "../workflow_scripts/human_audit_results.py"


rule assemble:
    input:
        **DOUBTING_IDS,
        **_doubting.assemble_shard_inputs(shard_paths),
        train_qrels=DOUBTING_CHECKED["train_qrels"],
        dev_qrels=DOUBTING_CHECKED["dev_qrels"],
        batch_files=_doubting.batch_files(DOUBTING_BATCHES),
    output:
        assembled=[f"{DOUBTING_ASSEMBLED}/{rel}" for rel in _assembled_files()],
    log:
        "logs/assemble.log",
    benchmark:
        "benchmarks/assemble.tsv"
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("assemble"),
        out_dir=lambda wildcards, output: str(Path(output[-1]).parent),
    script:
        "../workflow_scripts/assemble.py"


# the BM25 baseline of the dev queries, shipped in examples/ (irdata/doubting/baseline_run.py)
rule bm25_dev_run:
    input:
        dev_all=DOUBTING_IDS["dev_all"],
        queries=QUERIES["dev"],
        bm25=bm25_index_files("msmarco"),
    output:
        run=f"{WORK}/doubting/bm25_dev.trec",
    log:
        "logs/bm25_dev_run.log",
    benchmark:
        "benchmarks/bm25_dev_run.tsv"
    conda:
        "../envs/retrieval.yaml"
    params:
        **stage_params("bm25_dev_run"),
        bm25_dir=input_folder("bm25"),
    script:
        "../workflow_scripts/bm25_dev_run.py"


rule release_gate:
    input:
        **LLM_JOB_STATS,
    output:
        failures=DOUBTING_FAILURES,
    log:
        "logs/release_gate.log",
    benchmark:
        "benchmarks/release_gate.tsv"
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("release_gate"),
    script:
        "../workflow_scripts/release_gate.py"


rule stage_release:
    input:
        **release_audit(None),
        **release_downstream(None),
        inputs_checked=DOUBTING_INPUTS_CHECKED,
        assembled_files=rules.assemble.output,
        inputs_json=DOUBTING_INPUTS_REPORT,
        llm_identity=rules.llm_identity.output[0],
        failures=DOUBTING_FAILURES,
        bm25_run=rules.bm25_dev_run.output[0],
    output:
        release=[f"{DOUBTING_STAGED}/{rel}" for rel in _release_files()],
    log:
        "logs/stage_release.log",
    benchmark:
        "benchmarks/stage_release.tsv"
    conda:
        "../envs/core.yaml"
    params:
        # MANIFEST.json records these files' sha256: each is hashed like a prompt
        **stage_params("stage_release", files=DOUBTING_CODE_FILES),
        code_files=DOUBTING_CODE_FILES,
        assembled=lambda wildcards, input: str(Path(input.assembled_files[-1]).parent),
        staged=lambda wildcards, output: str(Path(output[-1]).parent),
    script:
        "../workflow_scripts/stage_release.py"


rule package:
    input:
        checked=DOUBTING_INPUTS_CHECKED,  # first: for other input paths, the dry-run names the missing ones
        release=rules.stage_release.output,
    output:
        published=DOUBTING_PUBLISHED,
    log:
        "logs/package.log",
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("package"),
        staged=lambda wildcards, input: str(Path(input.release[-1]).parent),
    script:
        "../workflow_scripts/package.py"
