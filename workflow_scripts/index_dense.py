import faiss

from irdata.logs import rule_logging
from irdata.retrieval.dense import build_dense_index

with rule_logging(snakemake) as log:
    faiss.omp_set_num_threads(snakemake.threads)
    stats = build_dense_index(snakemake.input.store, list(snakemake.input.embeddings),
                              list(snakemake.input.meta), snakemake.params.index_dir, snakemake.params.settings)
    log.info("index_dense %s: %s", snakemake.wildcards.collection, stats)
