from irdata.eval44b.queries import write_queries
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    report = write_queries(**job_args(snakemake))
    log.info("queries per split %s; too short %s", report["queries"], report["too_short"])
