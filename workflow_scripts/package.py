from irdata.atomic import write_json_atomic
from irdata.doubting.package import publish_package
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    s = snakemake.params.settings
    record = publish_package(snakemake.params.staged, s["package_dir"], s["ledger"])
    write_json_atomic(snakemake.output[0], record)
    log.info("published %s", record)
