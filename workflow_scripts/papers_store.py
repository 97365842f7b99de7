from irdata.job_args import job_args
from irdata.logs import rule_logging
from irdata.passage_store import run_papers_store

with rule_logging(snakemake) as log:
    stats = run_papers_store(**job_args(snakemake))
    log.info("papers_store: %s", stats)
