from irdata.annotate.audit import run_audit
from irdata.annotate.common import llm_job
from irdata.logs import rule_logging
from irdata.prompts import named_prompts

with rule_logging(snakemake) as log:
    i, o = snakemake.input, snakemake.output
    result = run_audit(i.qrels, i.queries, i.collection, named_prompts(i), snakemake.params.settings,
                       llm_job(snakemake), o.grades, o.audit, o.stats)
    log.info("audit of %d pairs: kappa linear %s, quadratic %s", result["pairs"], result["kappa_linear"],
             result["kappa_quadratic"])
