# A Doubting build, last stages: assemble the per-shard LLM stage outputs into the release configs
# (assemble), check the LLM failures against their limits (release_gate), run the BM25 baseline of the
# dev queries for examples/ (bm25_dev_run), build the release in a staging folder and check it against
# the release ledger (stage_release), then publish it (package).
# The published folder is not a Snakemake output: `package` replaces it atomically and its output is a
# record under work/, so Snakemake deletes nothing of a release before a rerun and leaves no file of
# its own in the folder, which holds exactly what SHA256SUMS lists. A deleted folder is published again
# from the staged release with -R package. Formats of the per-shard files: workflow_scripts/irdata/shard_files.py.

from irdata.doubting.release_files import assembled_files as _assembled_files
from irdata.doubting.package import release_files as _release_files
from irdata.doubting import wiring as _doubting

# the folders assemble writes and stage_release stages the release in (their files: irdata/doubting/release_files.py)
DOUBTING_ASSEMBLED = build_file("assembled")
DOUBTING_STAGED = build_file("staged")
# the per-shard LLM rules (the audit, when configured, is one job of its own)
_LLM_RULES = _doubting.llm_rules()
DOUBTING_AUDIT_STATS = build_file("audit_stats")


# the label audit, for the builds that have one (doubting.audit.qrels)
AUDITED_BUILDS = builds_where(lambda doubting: doubting["audit"]["qrels"])
# the human audit, for the builds that draw a sample (doubting.audit.human.sample_queries)
HUMAN_AUDITED_BUILDS = builds_where(lambda doubting: doubting["audit"]["human"]["sample_queries"])

if AUDITED_BUILDS != "(?!)":

    rule audit_labels:
        input:
            unpack(stage_prompts("audit_labels")),
            qrels=audit_input("qrels"),
            queries=audit_input("queries"),
            collection=BUILD_STORE,
        output:
            grades=build_file("audit_grades"),
            audit=build_file("audit"),
            stats=DOUBTING_AUDIT_STATS,
        log:
            logs("audit_labels/{build}.log"),
        benchmark:
            benchmarks("audit_labels/{build}.tsv")
        wildcard_constraints:
            build=AUDITED_BUILDS,
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
            qrels=audit_input("qrels"),
            queries=audit_input("queries"),
            bm25=bm25_index_files("{build}"),
            dense=dense_index_files("{build}"),
        output:
            **{f"{name}_run": path for name, path in DOUBTING_AUDIT_RUNS.items()},
        log:
            logs("audit_runs/{build}.log"),
        benchmark:
            benchmarks("audit_runs/{build}.tsv")
        wildcard_constraints:
            build=AUDITED_BUILDS,
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
            runs=lambda wildcards: _audit_run_files(build_doubting(wildcards)["audit"]["runs"]),
        output:
            ranking=build_file("audit_ranking"),
        log:
            logs("audit_ranking/{build}.log"),
        benchmark:
            benchmarks("audit_ranking/{build}.tsv")
        wildcard_constraints:
            build=AUDITED_BUILDS,
        conda:
            "../envs/retrieval.yaml"
        params:
            **stage_params("audit_ranking"),
        script:
            "../workflow_scripts/audit_ranking.py"


if HUMAN_AUDITED_BUILDS != "(?!)":

    # the blinded sheet: strict and official positives of a sample of dev queries, origins hidden
    rule human_audit_sheet:
        input:
            unpack(human_audit_sheet_inputs),
            collection=BUILD_STORE,
        output:
            sheet=build_file("human_audit_sheet"),
            label_studio=build_file("human_audit_label_studio"),
            key=build_file("human_audit_key"),
        log:
            logs("human_audit_sheet/{build}.log"),
        benchmark:
            benchmarks("human_audit_sheet/{build}.tsv")
        wildcard_constraints:
            build=HUMAN_AUDITED_BUILDS,
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
            sheets=lambda wildcards: build_doubting(wildcards)["audit"]["human"]["sheets"],
            queries=lambda wildcards: human_audit_sheet_inputs(wildcards)["queries"],
            collection=BUILD_STORE,
        output:
            results=build_file("human_audit"),
        log:
            logs("human_audit_results/{build}.log"),
        benchmark:
            benchmarks("human_audit_results/{build}.tsv")
        wildcard_constraints:
            build=HUMAN_AUDITED_BUILDS,
        conda:
            "../envs/core.yaml"
        params:
            **stage_params("human_audit_results"),
        script:
            "../workflow_scripts/human_audit_results.py"


rule assemble:
    input:
        unpack(assemble_inputs),
        **DOUBTING_IDS,
        train_qrels=DOUBTING_CHECKED["train_qrels"],
        dev_qrels=DOUBTING_CHECKED["dev_qrels"],
    output:
        assembled=[f"{DOUBTING_ASSEMBLED}/{rel}" for rel in _assembled_files()],
    log:
        logs("assemble/{build}.log"),
    benchmark:
        benchmarks("assemble/{build}.tsv")
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
        queries=queries("dev"),
        bm25=bm25_index_files("{build}"),
    output:
        run=build_file("bm25_dev_run"),
    log:
        logs("bm25_dev_run/{build}.log"),
    benchmark:
        benchmarks("bm25_dev_run/{build}.tsv")
    conda:
        "../envs/retrieval.yaml"
    params:
        **stage_params("bm25_dev_run"),
        bm25_dir=input_folder("bm25"),
    script:
        "../workflow_scripts/bm25_dev_run.py"


rule release_gate:
    input:
        unpack(llm_job_stats),
    output:
        failures=build_file("failures"),
    log:
        logs("release_gate/{build}.log"),
    benchmark:
        benchmarks("release_gate/{build}.tsv")
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("release_gate"),
    script:
        "../workflow_scripts/release_gate.py"


rule stage_release:
    input:
        unpack(release_audit),
        unpack(release_downstream),
        inputs_checked=DOUBTING_INPUTS_CHECKED,
        assembled_files=rules.assemble.output,
        inputs_json=DOUBTING_INPUTS_REPORT,
        llm_identity=rules.llm_identity.output[0],
        failures=rules.release_gate.output.failures,
        bm25_run=rules.bm25_dev_run.output[0],
    output:
        release=[f"{DOUBTING_STAGED}/{rel}" for rel in _release_files()],
    log:
        logs("stage_release/{build}.log"),
    benchmark:
        benchmarks("stage_release/{build}.tsv")
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("stage_release"),
        # MANIFEST.json's `code`: a change of what the release's code means reruns the release
        release_code=lambda wildcards: doubting_release_code(wildcards.build),
        assembled=lambda wildcards, input: str(Path(input.assembled_files[-1]).parent),
        staged=lambda wildcards, output: str(Path(output[-1]).parent),
    script:
        "../workflow_scripts/stage_release.py"


rule package:
    input:
        checked=DOUBTING_INPUTS_CHECKED,  # first: for other input paths, the dry-run names the missing ones
        release=rules.stage_release.output,
    output:
        published=build_file("published"),
    log:
        logs("package/{build}.log"),
    conda:
        "../envs/core.yaml"
    params:
        **stage_params("package"),
        staged=lambda wildcards, input: str(Path(input.release[-1]).parent),
    script:
        "../workflow_scripts/package.py"
