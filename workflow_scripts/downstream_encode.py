from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.retrieval.dense import run_encode_passages

with rule_logging(snakemake) as log:
    settings = snakemake.params.settings
    # the comparison's own thread count (doubting.downstream.threads), part of its settings
    stats = run_encode_passages(**job_args(snakemake), shard=int(snakemake.wildcards.shard),
                                threads=settings["threads"])
    log.info("downstream encoding of %s with %s: %s", snakemake.wildcards.dscoll, settings["model"], stats)
