from irdata.downstream.beir import convert_beir
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    counts = convert_beir(**job_args(snakemake))
    log.info("BEIR set %s: %s", snakemake.params.settings["name"], counts)
