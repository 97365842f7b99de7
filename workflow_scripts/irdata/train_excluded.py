"""ids/train_excluded.tsv, the train queries the dedup excludes: its columns and reasons, declared once for its
writer (irdata.dedup) and its readers (irdata.doubting.split_inputs, assemble), which need no dedup machinery."""

REASON_HELDOUT = "heldout"
REASON_REPEAT = "repeat"
# the query, why, the query it duplicates and that query's source (config key, file)
EXCLUDED_COLUMNS = ["query_id", "reason", "duplicate_of", "source_key", "source_file"]
