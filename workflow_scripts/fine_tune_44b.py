from irdata.eval44b.finetune import run_fine_tune
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    report = run_fine_tune(**job_args(snakemake))
    log.info(
        "fine-tuned %s (%d parameters), %d steps; best %s; sha256 %s",
        report["kind"],
        report["parameters"],
        report["steps"],
        report["best"],
        report["model_sha256"],
    )
