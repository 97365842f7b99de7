from irdata.eval44b.llm_arm import arm_llm_job
from irdata.eval44b.score import run_arm
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_arm(**job_args(snakemake), arm=snakemake.wildcards.e44arm, job=arm_llm_job(snakemake))
    log.info(
        "arm %s on %d queries (%d unranked: a candidate not scored): %s, %s ms/query",
        result["arm"],
        result["queries"],
        result["queries_unranked"],
        result["metrics"],
        result["ms_per_query"],
    )
