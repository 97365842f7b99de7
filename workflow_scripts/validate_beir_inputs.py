# The input check of a BEIR folder (irdata/sources/beir.py): it imports no other source's module.
from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.sources.beir import run_validate_beir_inputs

with rule_logging(snakemake) as log:
    report = run_validate_beir_inputs(**job_args(snakemake))
    log.info("inputs valid: %s; qrels rows dropped: %s", report["rows"], report["qrels_dropped"])
