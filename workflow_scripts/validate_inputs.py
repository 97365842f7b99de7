# The input check of a build's source (irdata/sources/): rules/queries.smk declares one rule per source,
# validate_<format>_inputs, each running this script, which runs the check of the source its rule is.
from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.sources import input_check

with rule_logging(snakemake) as log:
    report = input_check(rule=snakemake.rule)(**job_args(snakemake))
    log.info("inputs valid: %s; qrels rows dropped: %s", report["rows"], report["qrels_dropped"])
