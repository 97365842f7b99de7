from irdata.annotate.common import llm_job
from irdata.annotate.wood import run_wood
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    run_wood(**job_args(snakemake), job=llm_job(snakemake))
