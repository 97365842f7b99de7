# Figures and tables of `snakemake --report report.html` (rules report_doubting, report_eval44b):
# their outputs are flagged report(), with captions in report/. Logic in workflow_scripts/irdata/report.py.

from irdata.doubting.release_files import DATA_FILES as _DATA_FILES, STATS as _STATS

EVAL44B_REPORT_CATEGORY = "44b Eval"


rule report_doubting:
    input:
        stats=f"{DOUBTING_ASSEMBLED}/{_STATS}",
        judgments_train=f"{DOUBTING_ASSEMBLED}/{_DATA_FILES['judgments', 'train']}",
        train_queries=f"{DOUBTING_ASSEMBLED}/{_DATA_FILES['train_queries', 'train']}",
        dev_queries=f"{DOUBTING_ASSEMBLED}/{_DATA_FILES['dev_queries', 'dev']}",
        manifest=f"{DOUBTING_STAGED}/MANIFEST.json",  # the published one's bytes
        published=rules.package.output,
        agent_stats_train=lambda w: shard_paths(w.build, "train", "stats", rule="agent_search"),
        agent_stats_dev=lambda w: shard_paths(w.build, "dev", "stats", rule="agent_search"),
        agent_train=lambda w: shard_paths(w.build, "train", "agent"),
        agent_dev=lambda w: shard_paths(w.build, "dev", "agent"),
    output:
        summary=report(
            doubting_report("summary.html"),
            caption="../report/doubting_summary.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Tables",
        ),
        grades=report(
            doubting_report("grades.png"),
            caption="../report/doubting_grades.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Figures",
        ),
        wood=report(
            doubting_report("wood.png"),
            caption="../report/doubting_wood.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Figures",
        ),
        proposals=report(
            doubting_report("proposals.png"),
            caption="../report/doubting_proposals.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Figures",
        ),
        failures=report(
            doubting_report("failures.html"),
            caption="../report/doubting_failures.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Tables",
        ),
        audit=report(
            doubting_report("audit.html"),
            caption="../report/doubting_audit.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Tables",
        ),
        agent=report(
            doubting_report("agent.html"),
            caption="../report/doubting_agent.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Tables",
        ),
    log:
        logs("report_doubting/{build}.log"),
    benchmark:
        benchmarks("report_doubting/{build}.tsv")
    conda:
        "../envs/report.yaml"
    params:
        **stage_params("report_doubting"),
    script:
        "../workflow_scripts/report_doubting.py"


rule report_eval44b:
    input:
        results=EVAL44B_STAGED["results"],
    output:
        arms=report(eval44b_report("arms.html"), caption="../report/eval44b_arms.rst", category=EVAL44B_REPORT_CATEGORY),
        figure=report(
            eval44b_report("arms.png"), caption="../report/eval44b_arms.rst", category=EVAL44B_REPORT_CATEGORY
        ),
    log:
        logs("report_eval44b.log"),
    benchmark:
        benchmarks("report_eval44b.tsv")
    conda:
        "../envs/report.yaml"
    params:
        **stage_params("report_eval44b"),
    script:
        "../workflow_scripts/report_eval44b.py"


rule report_downstream:
    input:
        result=DS_RESULT,
    output:
        table=report(
            doubting_report("downstream.html"),
            caption="../report/doubting_downstream.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Tables",
        ),
        figure=report(
            doubting_report("downstream.png"),
            caption="../report/doubting_downstream.rst",
            category=DOUBTING_REPORT_CATEGORY,
            subcategory="Figures",
        ),
    log:
        logs("report_downstream/{build}.log"),
    benchmark:
        benchmarks("report_downstream/{build}.tsv")
    conda:
        "../envs/report.yaml"
    params:
        **stage_params("report_downstream"),
    script:
        "../workflow_scripts/report_downstream.py"
