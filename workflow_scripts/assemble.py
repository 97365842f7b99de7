from irdata.doubting.assemble import assemble, shard_paths_for
from irdata.logs import rule_logging

with rule_logging(snakemake) as log:
    i, s = snakemake.input, snakemake.params.settings
    stats = assemble(
        snakemake.params.out_dir,
        {"train_collection": i.train_collection, "train_excluded": i.train_excluded, "dev_all": i.dev_all},
        {split: shard_paths_for(s["work"], split, s["shards"][split]) for split in ("train", "dev")},
        i.train_qrels, i.dev_qrels, dict(s["acquisition_batches"]), dict(s["grading"]),
    )
    log.info("assembled rows: %s", stats["rows"])
