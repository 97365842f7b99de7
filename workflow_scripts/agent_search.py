from irdata.annotate.agent import run_agent_search
from irdata.llm import journal_path_for, load_settings
from irdata.logs import rule_logging
from irdata.retrieval.search import Searcher

with rule_logging(snakemake) as log:
    w = snakemake.wildcards
    settings = load_settings(snakemake.config["llm"])
    searcher = Searcher(snakemake.config["retrieval"], snakemake.params.bm25_dir, snakemake.params.dense_dir)
    summary = run_agent_search(
        snakemake.input.shard, snakemake.input.queries, snakemake.input.collection, searcher, settings,
        journal_path_for(settings, "agent_search", w.split, w.shard), snakemake.config["annotation"]["agent"][w.split],
        *snakemake.input.prompts, snakemake.output.proposals, snakemake.output.trace, snakemake.output.stats,
    )
    log.info("agent %s/%s: %s", w.split, w.shard, summary)
