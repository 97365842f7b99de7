from irdata.annotate.audit import run_audit
from irdata.annotate.common import llm_job
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    result = run_audit(**job_args(snakemake), job=llm_job(snakemake))
    log.info("audit of %d pairs: kappa linear %s, quadratic %s", result["pairs"], result["kappa_linear"],
             result["kappa_quadratic"])
