from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.report import downstream_report

with rule_logging(snakemake) as log:
    panels = downstream_report(**job_args(snakemake))
    log.info("downstream report: %d evaluation panels", panels)
