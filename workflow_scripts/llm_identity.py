from irdata.annotate.common import write_llm_identity
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    identity = write_llm_identity(snakemake.params.settings, snakemake.config["llm"], snakemake.output[0])
    log.info("LLM identity of model %s", identity.get("model"))
