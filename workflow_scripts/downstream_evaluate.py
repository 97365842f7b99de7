from irdata.downstream.evaluation import run_evaluation
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_evaluation(**job_args(snakemake))
    log.info("downstream evaluation of %s (%s index): %s", result["model"], result["index"],
             {name: s["mean"] for name, s in result["sets"].items()})
