from irdata.atomic import write_json_atomic
from irdata.logs import rule_logging
from irdata.publish import publish_release

with rule_logging(snakemake) as log:
    record = publish_release(snakemake.params.staged, snakemake.params.settings["release"], "package_44b")
    write_json_atomic(snakemake.output[0], record)
    log.info("published %s", record)
