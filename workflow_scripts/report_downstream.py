from irdata.logs import rule_logging
from irdata.report import downstream_report

with rule_logging(snakemake) as log:
    panels = downstream_report(snakemake.input.result, dict(snakemake.output.items()))
    log.info("downstream report: %d evaluation panels", panels)
