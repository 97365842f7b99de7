from irdata.annotate.answers import run_generate_answers
from irdata.annotate.common import llm_job
from irdata.logs import rule_logging
from irdata.prompts import named_prompts

with rule_logging(snakemake) as log:
    i, o = snakemake.input, snakemake.output
    run_generate_answers(i.agent, i.grades, i.queries, i.collection, named_prompts(i), snakemake.params.settings,
                         llm_job(snakemake), o.answers, o.stats)
