from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.report import run_report_doubting

with rule_logging(snakemake) as log:
    shown = run_report_doubting(**job_args(snakemake))
    log.info("report of a Doubting build: %s", shown)
