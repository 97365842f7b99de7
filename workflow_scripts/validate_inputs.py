# The input check of a build's source (irdata/sources/): rules/queries.smk declares one rule per source,
# validate_<format>_inputs, each running this script, which runs the check of the source its rule is.
from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.sources import source_of_rule

with rule_logging(snakemake) as log:
    report = source_of_rule(snakemake.rule).run_check(**job_args(snakemake))
    log.info("inputs valid: %s; qrels rows dropped: %s", report["rows"], report["qrels_dropped"])
