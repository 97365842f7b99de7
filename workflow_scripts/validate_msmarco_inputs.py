# The input check of MS MARCO-format files (irdata/sources/msmarco.py): it imports no other source's module.
from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.sources.msmarco import run_validate_msmarco_inputs

with rule_logging(snakemake) as log:
    report = run_validate_msmarco_inputs(**job_args(snakemake))
    log.info("inputs valid: %s; qrels rows dropped: %s", report["rows"], report["qrels_dropped"])
