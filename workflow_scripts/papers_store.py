from irdata.logs import rule_logging
from irdata.passage_store import write_passage_store

with rule_logging(snakemake) as log:
    stats = write_passage_store(snakemake.input.collection, snakemake.output[0])
    log.info("papers_store: %s", stats)
