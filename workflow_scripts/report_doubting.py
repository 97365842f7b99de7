from irdata.logs import rule_logging
from irdata.report import doubting_report

with rule_logging(snakemake) as log:
    i = snakemake.input
    shown = doubting_report(i.stats, i.manifest, i.judgments_train, i.train_queries,
                            i.dev_queries, dict(snakemake.output.items()))
    log.info("report of Doubting MS MARCO: %s", shown)
