from irdata.eval44b.mine_run import run_mining
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake):
    run_mining(**job_args(snakemake))
