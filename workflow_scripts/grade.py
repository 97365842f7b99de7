from irdata.annotate.grading import run_grade
from irdata.llm import journal_path_for, load_settings
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    w, i = snakemake.wildcards, snakemake.input
    settings = load_settings(snakemake.config["llm"])
    summary = run_grade(
        w.split, i.shard, i.agent, i.queries, i.collection, i.qrels, i.answers, settings,
        journal_path_for(settings, "grade", w.split, w.shard), i.prompt,
        snakemake.output.grades, snakemake.output.stats,
    )
    log.info("grade %s/%s: %s", w.split, w.shard, summary)
