from irdata.eval44b.split import split_papers
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    report = split_papers(**job_args(snakemake))
    log.info(
        "papers per split %s, reviews per split %s, %d reviews without a paper",
        report["papers"],
        report["reviews"],
        report["reviews_without_paper"],
    )
