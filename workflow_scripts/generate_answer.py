from irdata.annotate.answers import run_generate_answers
from irdata.annotate.common import llm_job
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    run_generate_answers(**job_args(snakemake), job=llm_job(snakemake))
