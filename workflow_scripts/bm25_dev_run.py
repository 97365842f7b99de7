from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.retrieval.baseline_run import write_bm25_run

with rule_logging(snakemake) as log:
    counts = write_bm25_run(**job_args(snakemake))
    log.info("BM25 dev run: %s", counts)
