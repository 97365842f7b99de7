from irdata.annotate.agent import run_agent_search
from irdata.annotate.common import llm_job
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    run_agent_search(**job_args(snakemake), job=llm_job(snakemake), threads=snakemake.threads)
