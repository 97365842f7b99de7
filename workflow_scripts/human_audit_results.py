from irdata.annotate.passages import TextStore
from irdata.atomic import write_json_atomic
from irdata.doubting.human_audit import human_results, read_sheets
from irdata.json_files import read_json
from irdata.logs import rule_logging
from irdata.passage_store import PassageStore

with rule_logging(snakemake) as log:
    i = snakemake.input
    queries, passages = TextStore.queries(i.queries), PassageStore(i.collection)
    sheets = read_sheets(list(i.sheets), queries.get, passages.get)
    result = human_results(read_json(i.key), sheets)
    write_json_atomic(snakemake.output[0], result)
    log.info("human audit: %s", result["origins"])
