from irdata.atomic import write_json_atomic
from irdata.downstream.evaluation import evaluate_model, qrels_dict
from irdata.logs import rule_logging
from irdata.tsv import read_id_text_tsv

with rule_logging(snakemake) as log:
    i = snakemake.input
    table = read_id_text_tsv(i.queries, "query_id", "text")
    queries = dict(zip(table.column("query_id").to_pylist(), table.column("text").to_pylist()))
    # the release's strict dev qrels count grade >= 2 (all are 3), the official and BEIR ones relevance >= 1
    sets = dict(snakemake.params.qrels_sets)
    result = evaluate_model(i.store, i.embeddings, i.meta, queries,
                            {name: (qrels_dict(i[name]), min_rel) for name, min_rel in sets.items()},
                            snakemake.params.settings)
    write_json_atomic(snakemake.output[0], result)
    log.info("downstream evaluation of %s (%s index): %s", result["model"], result["index"],
             {name: s["mean"] for name, s in result["sets"].items()})
