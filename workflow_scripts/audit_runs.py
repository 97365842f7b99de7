from irdata.logs import rule_logging
from irdata.retrieval.audit_runs import write_audit_runs

with rule_logging(snakemake) as log:
    i, p = snakemake.input, snakemake.params
    counts = write_audit_runs(i.qrels, i.queries, p.bm25_dir, p.dense_dir, dict(snakemake.output.items()),
                              p.settings, threads=snakemake.threads)
    log.info("audit runs, lines: %s", counts)
