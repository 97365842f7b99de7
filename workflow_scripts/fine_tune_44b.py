from irdata.eval44b.finetune import run_fine_tune
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    inputs = ("train_mined", "train_queries", "val_mined", "val_queries", "collection")
    report = run_fine_tune(
        snakemake.params.kind,
        {name: snakemake.input[name] for name in inputs},
        snakemake.params.model_dir,
        snakemake.output.report,
        snakemake.params.settings["finetune"],
        snakemake.params.settings["scoring"],
    )
    log.info(
        "fine-tuned %s (%d parameters), %d steps; best %s; sha256 %s",
        report["kind"],
        report["parameters"],
        report["steps"],
        report["best"],
        report["model_sha256"],
    )
