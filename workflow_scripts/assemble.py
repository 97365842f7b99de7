from irdata.doubting.assemble import run_assemble
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    stats = run_assemble(**job_args(snakemake))
    log.info("assembled rows: %s", stats["rows"])
