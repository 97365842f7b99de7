from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.report import eval44b_report

with rule_logging(snakemake) as log:
    ranked = eval44b_report(**job_args(snakemake))
    log.info("report of 44b Eval: %s", [(r["arm"], r["P@1"]) for r in ranked])
