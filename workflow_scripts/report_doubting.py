from irdata.logs import rule_logging
from irdata.report import doubting_report

with rule_logging(snakemake) as log:
    i = snakemake.input
    shown = doubting_report(i.stats, i.manifest, i.judgments_train, i.train_queries,
                            i.dev_queries, dict(snakemake.output.items()),
                            agent_stats={"train": i.agent_stats_train, "dev": i.agent_stats_dev},
                            agent_proposals={"train": i.agent_train, "dev": i.agent_dev})
    log.info("report of Doubting MS MARCO: %s", shown)
