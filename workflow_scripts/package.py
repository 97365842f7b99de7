from irdata.doubting.package import run_package
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = run_package(**job_args(snakemake))
    log.info("published %s", record)
