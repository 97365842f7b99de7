from irdata.doubting.package import publish_package
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = publish_package(snakemake.params.staged, snakemake.output[0], snakemake.params.settings["ledger"])
    log.info("published %s", record)
