from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.retrieval.bm25 import run_index_bm25

with rule_logging(snakemake) as log:
    stats = run_index_bm25(**job_args(snakemake), threads=snakemake.threads)
    log.info("index_bm25 %s: %s", snakemake.wildcards.collection, stats)
