from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.retrieval.audit_runs import write_audit_runs

with rule_logging(snakemake) as log:
    counts = write_audit_runs(**job_args(snakemake), threads=snakemake.threads)
    log.info("audit runs, lines: %s", counts)
