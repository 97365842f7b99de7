from irdata.logs import rule_logging
from irdata.retrieval.bm25 import build_bm25_index

with rule_logging(snakemake) as log:
    stats = build_bm25_index(snakemake.input.store, snakemake.params.index_dir, snakemake.params.settings,
                             workers=snakemake.threads)
    log.info("index_bm25 %s: %s", snakemake.wildcards.collection, stats)
