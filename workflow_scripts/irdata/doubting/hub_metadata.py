"""The YAML front matter of the Doubting MS MARCO card: the Hugging Face Hub's dataset metadata.

`configs:` maps each config and split to its parquet file, so that `datasets.load_dataset(<package
folder>, <config>)` works offline; a split with no rows is left out of it (datasets 5.2.0 cannot load
one). `size_categories` is the Hub's bucket of the largest config's row count (all its splits): the
configs are views of one set of annotations, so their sum would count a pair several times.
"""

from __future__ import annotations

from .. import card_text
from ..hub_sizes import size_category
from .release_files import CONFIG_SPLITS, DATA_FILES

# the prompts, the BM25 tokenizer and the queries are English
LANGUAGES = ["en"]
# Hugging Face's task taxonomy: passages ranked for a query
TASK_CATEGORIES = ["text-retrieval"]
TASK_IDS = ["document-retrieval"]


def declared_configs(rows: dict) -> dict[str, list[str]]:
    """{config: [split, ...]} of the splits with rows, in card order; a config without any is left out."""
    configs: dict[str, list[str]] = {}
    for config, split in CONFIG_SPLITS:
        if rows[f"{config}/{split}"]:
            configs.setdefault(config, []).append(split)
    return configs


def largest_config_rows(rows: dict) -> int:
    totals: dict[str, int] = {}
    for key, count in rows.items():
        config = key.split("/")[0]
        totals[config] = totals.get(config, 0) + count
    return max(totals.values(), default=0)


def front_matter(title: str, rows: dict, license_id: str) -> str:
    """The card's YAML header; `rows`: {"config/split": count}."""
    metadata = {"pretty_name": title, "language": LANGUAGES, "license": license_id,
                "task_categories": TASK_CATEGORIES, "task_ids": TASK_IDS,
                "size_categories": [size_category(largest_config_rows(rows))]}
    configs = {config: [(split, DATA_FILES[(config, split)]) for split in splits]
               for config, splits in declared_configs(rows).items()}
    return card_text.front_matter(metadata, configs)
