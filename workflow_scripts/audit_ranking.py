from irdata.atomic import write_json_atomic
from irdata.doubting.audit_ranking import OWN_RUNS, audit_ranking
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i = snakemake.input
    result = audit_ranking(i.grades, {name: i[name] for name in OWN_RUNS}, list(i.runs),
                           snakemake.params.settings["min_rel"])
    write_json_atomic(snakemake.output[0], result)
    log.info("system ranking over %d runs: %s", len(result["runs"]), result["correlation"])
