
from irdata.atomic import write_json_atomic
from irdata.logs import rule_logging
from irdata.msmarco_inputs import validate_msmarco_inputs

with rule_logging(snakemake) as log:
    inputs = snakemake.input
    report = validate_msmarco_inputs(
        inputs.collection, inputs.train_queries, inputs.train_qrels, inputs.dev_queries,
        inputs.dev_qrels, inputs.dev_answers, list(inputs.heldout_queries),
        qrels_missing_passages=snakemake.params.settings["qrels_missing_passages"],
        checked={key: snakemake.output[key] for key in ("train_qrels", "dev_qrels", "dev_answers")},
        passage_store=snakemake.output.store,
    )
    log.info("inputs valid: %s; qrels rows dropped: %s", report["rows"], report["qrels_dropped"])
    write_json_atomic(snakemake.output.report, report)
    write_json_atomic(snakemake.output.checked, {"inputs": list(report["files"])})
