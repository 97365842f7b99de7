"""The YAML front matter of the Doubting MS MARCO card: the Hugging Face Hub's dataset metadata.

`configs:` maps each config and split to its parquet file, so that `datasets.load_dataset(<package
folder>, <config>)` works offline; a split with no rows is left out of it (datasets 5.2.0 cannot load
one). `size_categories` is the Hub's bucket of the largest config's row count (all its splits): the
configs are views of one set of annotations, so their sum would count a pair several times.
"""

from __future__ import annotations

from .release_files import CONFIG_SPLITS, DATA_FILES

# the prompts, the BM25 tokenizer and the queries are English
LANGUAGES = ["en"]
# Hugging Face's task taxonomy: passages ranked for a query
TASK_CATEGORIES = ["text-retrieval"]
TASK_IDS = ["document-retrieval"]
# the Hub's size buckets: (upper bound, name), n below the bound
SIZE_BUCKETS = [(10**3, "n<1K"), (10**4, "1K<n<10K"), (10**5, "10K<n<100K"), (10**6, "100K<n<1M"),
                (10**7, "1M<n<10M"), (10**8, "10M<n<100M"), (10**9, "100M<n<1B"), (10**10, "1B<n<10B"),
                (10**11, "10B<n<100B"), (10**12, "100B<n<1T")]
LARGEST_BUCKET = "n>1T"


def size_category(n_rows: int) -> str:
    """The Hub's size_categories bucket of `n_rows` (a bound itself falls in the bucket above it)."""
    if n_rows < 0:
        raise ValueError(f"row count must be >= 0, got {n_rows}")
    return next((name for bound, name in SIZE_BUCKETS if n_rows < bound), LARGEST_BUCKET)


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


def _list(key: str, values: list[str]) -> list[str]:
    return [f"{key}:", *(f"- {v}" for v in values)]


def front_matter(title: str, rows: dict, license_id: str) -> str:
    """The card's YAML header; `rows`: {"config/split": count}."""
    lines = ["---", f"pretty_name: {title}", *_list("language", LANGUAGES), f"license: {license_id}",
             *_list("task_categories", TASK_CATEGORIES), *_list("task_ids", TASK_IDS),
             *_list("size_categories", [size_category(largest_config_rows(rows))]), "configs:"]
    for i, (config, splits) in enumerate(declared_configs(rows).items()):
        lines.append(f"- config_name: {config}")
        if i == 0:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in splits:
            lines += [f"  - split: {split}", f"    path: {DATA_FILES[(config, split)]}"]
    lines.append("---")
    return "\n".join(lines) + "\n"
