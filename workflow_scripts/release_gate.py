from irdata.doubting.gate import STAGES, run_gate
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = run_gate({rule: list(snakemake.input[rule]) for rule in STAGES}, snakemake.params.settings,
                      snakemake.output[0])
    for line in record["over_limit"]:
        log.warning("accepted over the limit: %s", line)
    log.info("LLM failures: %s", {stage: f["failed"] for stage, f in record["stages"].items()})
