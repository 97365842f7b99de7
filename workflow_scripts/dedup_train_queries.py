from irdata.dedup import write_query_ids
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    counts = write_query_ids(
        snakemake.input.train_queries, list(snakemake.input.heldout_queries), snakemake.input.dev_queries,
        snakemake.output.train_collection, snakemake.output.train_excluded, snakemake.output.dev_all,
        **snakemake.params.settings,
    )
    log.info("dedup: %s", counts)
