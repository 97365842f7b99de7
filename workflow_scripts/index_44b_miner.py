from irdata.eval44b.mine_run import build_miner_index
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    stats = build_miner_index(**job_args(snakemake), threads=snakemake.threads)
    log.info("44b %s miner index: %s", snakemake.params.kind, stats)
