from irdata.eval44b.mine_run import run_mining
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    run_mining(
        snakemake.input.queries,
        snakemake.input.papers,
        snakemake.params.bm25,
        snakemake.params.dense,
        snakemake.output.mined,
        snakemake.output.report,
        snakemake.params.settings["mining"],
        snakemake.params.settings["search"],
    )
