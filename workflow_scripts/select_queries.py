from irdata.eval44b.queries import write_queries
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    outs = {split: snakemake.output[split] for split in ("train", "val", "test")}
    settings = snakemake.params.settings
    report = write_queries(snakemake.input.reviews, outs, snakemake.output.report, settings["min_chars"])
    log.info("queries per split %s; too short %s", report["queries"], report["too_short"])
