from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.retrieval.dense import run_encode_passages

with rule_logging(snakemake) as log:
    stats = run_encode_passages(**job_args(snakemake), shard=int(snakemake.wildcards.shard), threads=snakemake.threads)
    log.info("encode_passages %s shard %s: %s", snakemake.wildcards.collection, snakemake.wildcards.shard, stats)
