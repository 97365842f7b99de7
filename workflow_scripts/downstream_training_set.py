from irdata.downstream.labels import run_training_set
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i, p = snakemake.input, snakemake.params
    report = run_training_set(
        {k: i[k] for k in ("train_queries", "qrels_train", "judgments_train", "official_qrels", "queries")},
        p.bm25_dir, p.dense_dir, snakemake.output.rows, snakemake.output.report, p.settings, snakemake.threads)
    log.info("downstream training set: %s", report)
