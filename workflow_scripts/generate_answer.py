from irdata.annotate.answers import run_generate_answers
from irdata.llm import journal_path_for, load_settings
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i = snakemake.input
    settings = load_settings(snakemake.config["llm"])
    summary = run_generate_answers(
        i.agent, i.grades, i.queries, i.collection, settings,
        journal_path_for(settings, "generate_answer", snakemake.wildcards.shard), i.prompt,
        snakemake.config["annotation"]["answer_max_tokens"], snakemake.output.answers, snakemake.output.stats,
    )
    log.info("answers %s: %s", snakemake.wildcards.shard, summary)
