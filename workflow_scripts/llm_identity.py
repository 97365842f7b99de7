from irdata.annotate.common import write_llm_identity
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    identity = write_llm_identity(**job_args(snakemake), llm_config=snakemake.config["llm"])
    log.info("LLM identity of model %s", identity.get("model"))
