from irdata.doubting.human_audit import run_human_audit_results
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_human_audit_results(**job_args(snakemake))
    log.info("human audit: %s", result["origins"])
