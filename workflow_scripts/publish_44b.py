from irdata.eval44b.package import publish
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = publish(**job_args(snakemake))
    log.info("published %s", record)
