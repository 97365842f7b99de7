from irdata.annotate.agent import run_agent_search
from irdata.annotate.common import llm_job
from irdata.logs import rule_logging
from irdata.prompts import named_prompts
from irdata.retrieval.search import Searcher

with rule_logging(snakemake) as log:
    i, o, settings = snakemake.input, snakemake.output, snakemake.params.settings
    searcher = Searcher(settings["search"], snakemake.params.bm25_dir, snakemake.params.dense_dir,
                        threads=snakemake.threads)
    run_agent_search(i.shard, i.queries, i.collection, searcher, named_prompts(i), settings, llm_job(snakemake),
                     o.proposals, o.trace, o.stats)
