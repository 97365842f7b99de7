from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.retrieval.dense import run_index_dense
from irdata.retrieval.faiss_lib import faiss

with rule_logging(snakemake) as log:
    faiss.omp_set_num_threads(snakemake.threads)
    stats = run_index_dense(**job_args(snakemake))
    log.info("index_dense %s: %s", snakemake.wildcards.collection, stats)
