import torch

from irdata.logs import rule_logging
from irdata.retrieval.dense import encode_passages

with rule_logging(snakemake) as log:
    torch.set_num_threads(snakemake.threads)
    stats = encode_passages(snakemake.input.store, snakemake.output.embeddings, snakemake.output.meta,
                            shard=int(snakemake.wildcards.shard), shards=snakemake.params.shards,
                            settings=snakemake.params.settings)
    log.info("encode_passages %s shard %s: %s", snakemake.wildcards.collection, snakemake.wildcards.shard, stats)
