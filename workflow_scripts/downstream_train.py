from irdata.downstream.training import run_train_arm
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    report = run_train_arm(**job_args(snakemake), arm=snakemake.wildcards.dsarm)
    log.info("downstream %s model from %s: %d steps, sha256 %s", report["arm"], report["base_model"],
             report["steps"], report["model_sha256"])
