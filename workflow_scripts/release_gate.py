from irdata.doubting.gate import STAGES, input_name, run_gate, stage_splits
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    stats = {(stage, split): list(snakemake.input.get(input_name(stage, split), []))
             for stage in STAGES for split in stage_splits(stage)}
    record = run_gate(stats, snakemake.params.settings, snakemake.output[0], snakemake.config["llm"]["journal_dir"])
    for line in record["over_limit"]:
        log.warning("accepted over the limit: %s", line)
    log.info("LLM failures: %s", {stage: {split: f["failed"] for split, f in r["splits"].items()}
                                  for stage, r in record["stages"].items()})
