from irdata.doubting.human_audit import run_human_audit_sheet
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    sample = run_human_audit_sheet(**job_args(snakemake))
    log.info("human audit sheet: %d %s queries, %d items", len(sample["queries"]), snakemake.params.settings["split"],
             len(sample["items"]))
