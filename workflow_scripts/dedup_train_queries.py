from irdata.dedup import write_query_ids
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    counts = write_query_ids(**job_args(snakemake))
    log.info("dedup: %s", counts)
