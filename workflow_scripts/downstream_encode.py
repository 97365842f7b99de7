import torch

from irdata.logs import rule_logging
from irdata.retrieval.dense import encode_passages

with rule_logging(snakemake) as log:
    settings = snakemake.params.settings
    torch.set_num_threads(settings["threads"])
    stats = encode_passages(snakemake.input.store, snakemake.output.embeddings, snakemake.output.meta,
                            shard=int(snakemake.wildcards.shard), shards=snakemake.params.shards, settings=settings)
    log.info("downstream encoding of %s with %s: %s", snakemake.wildcards.dscoll, settings["model"], stats)
