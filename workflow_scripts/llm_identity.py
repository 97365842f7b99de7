from irdata.annotate.common import write_llm_identity
from irdata.llm import load_settings
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    identity = write_llm_identity(load_settings(snakemake.config["llm"]), snakemake.output[0])
    log.info("LLM identity: %s", identity)
