from irdata.doubting.audit_ranking import run_audit_ranking
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_audit_ranking(**job_args(snakemake))
    log.info("system ranking over %d runs: %s", len(result["runs"]), result["correlation"])
