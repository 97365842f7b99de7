from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.shards import write_query_shards

with rule_logging(snakemake) as log:
    for split, sizes in write_query_shards(**job_args(snakemake)).items():
        log.info("%s: %d queries in %d shards (sizes %d-%d)", split, sum(sizes), len(sizes), min(sizes), max(sizes))
