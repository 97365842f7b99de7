"""What the retrieval index rules read (irdata/stage.py): BM25, passage encoding and the dense index.

Each key subset is spelled here once; the 44b miners' own indexes (irdata/eval44b/stages.py) build
from the same subsets of their merged settings. A Searcher's subset is search_settings.
"""

from __future__ import annotations

from ..stage import Stage, canonical

# what an encoded shard depends on: the model and how it encodes (encode_shard_mb sizes the jobs,
# it is DAG structure, not a setting of one job)
ENCODE_KEYS = ("model", "normalize", "max_seq_length", "batch_size", "device")
# what a dense index's files depend on: its kind and build parameters and the recall sample; the search
# settings (ef_search, ivf_nprobe) are not, its recall is recorded at fixed efforts (dense.RECALL_EFFORTS)
DENSE_INDEX_KEYS = ("model", "normalize", "max_seq_length", "hnsw_threshold", "compressed_threshold",
                    "compressed_index", "hnsw_m", "ef_construction", "ivf_lists", "pq_m", "train_size",
                    "sample_seed", "recall_queries")


# the retrieval settings a Searcher reads (the index-building keys are not among them)
DENSE_SEARCH_KEYS = ("model", "normalize", "max_seq_length", "batch_size", "device", "ef_search", "ivf_nprobe",
                     "query_cache")


def search_settings(retrieval: dict) -> dict:
    """The `settings` of a Searcher over indexes built from `retrieval` (config["retrieval"])."""
    return {"bm25": retrieval["bm25"], "rrf_k": retrieval["rrf_k"],
            "dense": {key: retrieval["dense"][key] for key in DENSE_SEARCH_KEYS}}


def encode_settings(dense: dict) -> dict:
    return {key: dense[key] for key in ENCODE_KEYS}


def dense_index_settings(dense: dict) -> dict:
    return {key: dense[key] for key in DENSE_INDEX_KEYS}


BM25_STAGE = Stage(
    name="index_bm25",
    settings=lambda config, **_: canonical(config["retrieval"]["bm25"]),
)
ENCODE_STAGE = Stage(
    name="encode_passages",
    settings=lambda config, **_: canonical(encode_settings(config["retrieval"]["dense"])),
)
DENSE_INDEX_STAGE = Stage(
    name="index_dense",
    settings=lambda config, **_: canonical(dense_index_settings(config["retrieval"]["dense"])),
)
STAGES = (BM25_STAGE, ENCODE_STAGE, DENSE_INDEX_STAGE)
