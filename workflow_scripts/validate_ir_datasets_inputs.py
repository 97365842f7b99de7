# The input check of ir_datasets ids (irdata/sources/ir_datasets.py): it imports no other source's module.
from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.sources.ir_datasets import run_validate_ir_datasets_inputs

with rule_logging(snakemake) as log:
    report = run_validate_ir_datasets_inputs(**job_args(snakemake))
    log.info("inputs valid: %s; qrels rows dropped: %s", report["rows"], report["qrels_dropped"])
