from irdata.annotate.wood import run_wood
from irdata.llm import journal_path_for, load_settings
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i = snakemake.input
    settings = load_settings(snakemake.config["llm"])
    summary = run_wood(
        i.agent, i.answers, i.queries, i.collection, settings,
        journal_path_for(settings, "wood", snakemake.wildcards.shard), *i.prompts,
        snakemake.output.wood, snakemake.output.stats,
    )
    log.info("wood %s: %s", snakemake.wildcards.shard, summary)
