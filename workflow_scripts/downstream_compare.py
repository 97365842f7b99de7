from irdata.downstream.compare import finding
from irdata.downstream.compare_run import run_compare
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_compare(**job_args(snakemake))
    log.info("downstream comparison: %s", finding(result=result))
