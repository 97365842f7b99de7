from irdata.atomic import write_json_atomic
from irdata.downstream.beir import convert_beir
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    s, o = snakemake.params.settings, snakemake.output
    counts = convert_beir(s["path"], s["split"], o.store, o.queries, o.qrels)
    write_json_atomic(o.report, counts)
    log.info("BEIR set %s: %s", s["name"], counts)
