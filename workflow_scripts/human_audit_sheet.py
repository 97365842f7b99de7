from irdata.annotate.passages import TextStore
from irdata.doubting.human_audit import draw_sample, qrels_positives, write_sheet
from irdata.logs import rule_logging
from irdata.passage_store import PassageStore
from irdata.shards import read_id_list

with rule_logging(snakemake) as log:
    i, o, s = snakemake.input, snakemake.output, snakemake.params.settings
    queries, passages = TextStore.queries(i.queries), PassageStore(i.collection)
    sample = draw_sample(read_id_list(i.dev_all), qrels_positives(i.official), qrels_positives(i.strict),
                         s["sample_queries"], s["seed"])
    write_sheet(sample, queries.get, passages.get, o.sheet, o.label_studio, o.key)
    log.info("human audit sheet: %d queries, %d items", len(sample["queries"]), len(sample["items"]))
