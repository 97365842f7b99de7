from irdata.atomic import write_json_atomic
from irdata.beir_inputs import CHECKED_FILES, validate_beir_inputs
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    source = snakemake.params.settings["source"]
    report = validate_beir_inputs(
        source["folder"], source["train_split"], source["dev_split"], source["heldout_queries"],
        checked={key: snakemake.output[key] for key in CHECKED_FILES}, passage_store=snakemake.output.store,
    )
    log.info("inputs valid: %s", report["rows"])
    write_json_atomic(snakemake.output.report, report)
    write_json_atomic(snakemake.output.checked, {"inputs": list(report["files"])})
