from irdata.eval44b.split import split_papers
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    report = split_papers(
        snakemake.input.papers,
        snakemake.input.reviews,
        out_tsv=snakemake.output.collection,
        out_papers=snakemake.output.papers,
        out_reviews=snakemake.output.reviews,
        out_report=snakemake.output.report,
        settings=snakemake.params.settings,
    )
    log.info(
        "papers per split %s, reviews per split %s, %d reviews without a paper",
        report["papers"],
        report["reviews"],
        report["reviews_without_paper"],
    )
