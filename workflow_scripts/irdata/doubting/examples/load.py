"""Print a few rows of every config and split of Doubting MS MARCO with Hugging Face `datasets`.

    python examples/load.py [PACKAGE]     # default: the folder above examples/ (works offline)
"""

import sys
from pathlib import Path

from datasets import load_dataset

CONFIGS = {"qrels": ["train", "dev"], "judgments": ["train", "dev"], "train_queries": ["train"],
           "dev_queries": ["dev"], "generated_answers": ["train"]}


def main():
    package = sys.argv[1] if len(sys.argv) > 1 else str(Path(__file__).resolve().parents[1])
    for config, splits in CONFIGS.items():
        for split in splits:
            data = load_dataset(package, config, split=split)
            print(f"== {config} / {split}: {data.num_rows:,} rows; columns {data.column_names}")
            for row in data.select(range(min(3, data.num_rows))):
                print("  ", row)


if __name__ == "__main__":
    main()
