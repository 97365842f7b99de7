"""croissant.json of the Doubting MS MARCO release: every file with its sha256, and a record set per
parquet config and split with the columns of release_files.SCHEMAS.

Order (no file lists a hash of a file that lists its own): croissant.json is written after every other
file of the release and lists them all but SHA256SUMS; SHA256SUMS, written last, lists croissant.json.
MANIFEST.json lists no release file, so it is written before croissant.json and listed in it.
"""

from __future__ import annotations

from pathlib import Path

from ..atomic import write_json_atomic
from ..croissant import CROISSANT, RecordSet, croissant_metadata, hub_url, schema_columns
from .baseline_run import RUN_FILE
from .manifest import MANIFEST
from .release_files import CONFIG_SPLITS, DATA_FILES, ID_FILES, SCHEMAS, TREC_GRADED, TREC_STRICT

# what one row is, per config (the card's Contents says it per split, with the counts)
ROW_DESCRIPTIONS = {
    ("qrels", "train"): "a training positive: an agent-proposed passage with grade 2 or 3 and a finite WOOD score",
    ("qrels", "dev"): "a strict development positive: grade 3",
    ("judgments", "train"): "a graded pair: an agent proposal or an official positive (origin)",
    ("judgments", "dev"): "a graded pair: an agent proposal or an official positive the agent did not propose",
    ("train_queries", "train"): "a query of the training collection, with counts and its selected training positive",
    ("dev_queries", "dev"): "a development query, with counts and its strict-subset flag",
    ("generated_answers", "train"): "the model-generated answer used to compute WOOD for that query",
}
COMPANION_DESCRIPTIONS = {
    TREC_STRICT: "the strict development qrels in TREC format (query_id 0 passage_id grade)",
    TREC_GRADED: "every graded development pair in TREC format (query_id 0 passage_id grade, 0-3)",
    RUN_FILE: "a BM25 baseline run of the development queries in TREC run format",
    ID_FILES["train_collection"]: "the query ids of the training collection, one a line",
    ID_FILES["train_excluded"]: ("the excluded training query ids with the reason, the query each duplicates and that "
                                 "query's source (query_id, reason, duplicate_of, source_key, source_file)"),
    ID_FILES["dev_all"]: "all development query ids, one a line",
    ID_FILES["dev_strict"]: "the development query ids of the strict subset, one a line",
    "README.md": "the dataset card",
    MANIFEST: "version, row counts, source and code checksums",
}
DESCRIPTION = ("LLM-graded query-passage annotations for training and evaluating passage retrievers, keyed by "
               "query and passage ids: graded judgments, training and strict development qrels, per-query "
               "counts and the selected training positive. Ids and annotations only, no query or passage text.")


def release_croissant(folder, version: str, repo_id: str, on_hub: bool, license_id: str, paper: str | None,
                      examples: list[str]) -> None:
    """Write croissant.json in the release folder `folder`, whose other files but SHA256SUMS are written; a
    build on no Hub (`on_hub` false) names no Hub URL."""
    files = {rel: ROW_DESCRIPTIONS[cs] for cs, rel in DATA_FILES.items()}
    files.update(COMPANION_DESCRIPTIONS)
    files.update({f"examples/{name}": "example script" for name in examples})
    record_sets = [RecordSet(f"{config}_{split}", DATA_FILES[(config, split)], schema_columns(SCHEMAS[config]),
                             ROW_DESCRIPTIONS[(config, split)]) for config, split in CONFIG_SPLITS]
    url = hub_url(repo_id, on_hub)
    # the card's Citation: the paper, or the release by its repository id and version (and its Hub page)
    citation = paper or f"{repo_id} {version}" + (f", {url}" if url else "")
    metadata = croissant_metadata(folder, repo_id, DESCRIPTION, license_id, url, version, citation, files, record_sets)
    write_json_atomic(Path(folder) / CROISSANT, metadata)
