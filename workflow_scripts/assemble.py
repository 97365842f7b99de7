from irdata.doubting.assemble import assemble, shard_paths_for
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    inputs, params = snakemake.input, snakemake.params
    shards = {split: shard_paths_for(params.work, split, list(inputs[f"{split}_shards"])) for split in ("train", "dev")}
    stats = assemble(
        params.out_dir,
        {"train_collection": inputs.train_collection, "train_excluded": inputs.train_excluded,
         "dev_all": inputs.dev_all},
        shards, inputs.train_qrels, inputs.dev_qrels, dict(params.acquisition_batches),
    )
    log.info("assembled rows: %s", stats["rows"])
