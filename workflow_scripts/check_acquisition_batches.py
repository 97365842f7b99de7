from irdata.doubting.acquisition_batches import run_check_acquisition_batches
from irdata.job_args import job_args
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    record = run_check_acquisition_batches(**job_args(snakemake))
    for split, batches in record.items():
        for batch in batches["batches"]:
            log.info("%s batch %s: %d of its %d ids are %s queries (%d of the other split, left out)", split,
                     batch["name"], len(batch["ids"]), batch["listed"], split, batch["other_split"])
