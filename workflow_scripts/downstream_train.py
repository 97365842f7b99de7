from irdata.downstream.training import run_train_arm
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i = snakemake.input
    report = run_train_arm(snakemake.wildcards.dsarm, i.rows, i.queries, i.store, snakemake.params.model_dir,
                           snakemake.output.report, snakemake.params.settings)
    log.info("downstream %s model from %s: %d steps, sha256 %s", report["arm"], report["base_model"],
             report["steps"], report["model_sha256"])
