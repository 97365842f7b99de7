from irdata.logs import rule_logging
from irdata.shards import write_shards

with rule_logging(snakemake) as log:
    for split in ("train", "dev"):
        sizes = write_shards(snakemake.input[split], list(snakemake.output[split]))
        log.info("%s: %d queries in %d shards (sizes %d-%d)", split, sum(sizes), len(sizes), min(sizes), max(sizes))
