from irdata.downstream.encode_run import encode_shard
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    stats = encode_shard(**job_args(snakemake), shard=int(snakemake.wildcards.shard))
    log.info("downstream encoding of %s with %s: %s", snakemake.wildcards.dscoll, snakemake.params.settings["model"],
             stats)
