from irdata.annotate.common import llm_job
from irdata.annotate.grading import run_grade
from irdata.logs import rule_logging
from irdata.prompts import named_prompts

with rule_logging(snakemake) as log:
    i, o = snakemake.input, snakemake.output
    run_grade(i.shard, i.agent, i.queries, i.collection, i.qrels, i.get("answers"), named_prompts(i),
              snakemake.params.settings, llm_job(snakemake), o.grades, o.stats)
