from irdata.annotate.common import llm_job
from irdata.annotate.wood import run_wood
from irdata.logs import rule_logging
from irdata.prompts import named_prompts

with rule_logging(snakemake) as log:
    i, o = snakemake.input, snakemake.output
    run_wood(i.agent, i.answers, i.queries, i.collection, named_prompts(i), snakemake.params.settings,
             llm_job(snakemake), o.wood, o.stats)
