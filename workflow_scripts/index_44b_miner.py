from irdata.eval44b.mine_run import build_miner_index
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    stats = build_miner_index(
        snakemake.params.kind,
        snakemake.input.collection,
        snakemake.params.index_dir,
        snakemake.params.settings,
        snakemake.threads,
    )
    log.info("44b %s miner index: %s", snakemake.params.kind, stats)
