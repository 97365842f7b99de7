from irdata.logs import rule_logging
from irdata.retrieval.baseline_run import write_bm25_run

with rule_logging(snakemake) as log:
    i = snakemake.input
    counts = write_bm25_run(i.dev_all, i.queries, snakemake.params.bm25_dir, snakemake.output[0],
                            snakemake.params.settings)
    log.info("BM25 dev run: %s", counts)
