from irdata.eval44b.publish_run import publish
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = publish(**job_args(snakemake))
    log.info("published %s", record)
