from irdata.downstream.labels import run_training_set
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    report = run_training_set(**job_args(snakemake), threads=snakemake.threads)
    log.info("downstream training set: %s", report)
