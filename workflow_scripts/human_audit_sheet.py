from irdata.annotate.passages import TextStore
from irdata.doubting.human_audit import draw_sample, qrels_positives, selected_positives, write_sheet
from irdata.logs import rule_logging
from irdata.passage_store import PassageStore
from irdata.shards import read_id_list

with rule_logging(snakemake) as log:
    i, o, s = snakemake.input, snakemake.output, snakemake.params.settings
    queries, passages = TextStore.queries(i.queries), PassageStore(i.collection)
    ids, release = (read_id_list(i.ids), qrels_positives(i.release)) if s["split"] == "dev" \
        else selected_positives(i.release)
    sample = draw_sample(ids, qrels_positives(i.official), release, s["sample_queries"], s["seed"])
    write_sheet({"split": s["split"], **sample}, queries.get, passages.get, o.sheet, o.label_studio, o.key)
    log.info("human audit sheet: %d %s queries, %d items", len(sample["queries"]), s["split"], len(sample["items"]))
