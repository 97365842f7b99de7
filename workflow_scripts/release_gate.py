from irdata.doubting.gate import run_release_gate
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = run_release_gate(**job_args(snakemake), journal_dir=snakemake.config["llm"]["journal_dir"])
    for line in record["over_limit"]:
        log.warning("accepted over the limit: %s", line)
    log.info("LLM failures: %s", {stage: {split: f["failed"] for split, f in r["splits"].items()}
                                  for stage, r in record["stages"].items()})
