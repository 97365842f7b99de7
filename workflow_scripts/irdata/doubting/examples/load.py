"""Print a few rows of every config and split of Doubting MS MARCO with Hugging Face `datasets`.

    python examples/load.py [PACKAGE]     # default: the folder above examples/ (works offline)

The configs and splits and their row counts come from MANIFEST.json. A split with no rows is not
declared in the card's `configs:` (datasets 5.2.0 cannot load one): it is named and skipped.
Rebuilt the folder in place? Set FRESH=1 to bypass the rows `datasets` cached from the earlier build.
"""

import json
import os
import sys
from pathlib import Path

from datasets import load_dataset


def main():
    # resolved: datasets 5.2 cannot load the path "." itself (its dataset name would be empty)
    package = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parents[1]).resolve()
    rows = json.loads((package / "MANIFEST.json").read_text(encoding="utf-8"))["rows"]
    fresh = {"download_mode": "force_redownload", "verification_mode": "no_checks"} if os.environ.get("FRESH") else {}
    for config, splits in rows.items():
        for split, count in splits.items():
            if not count:
                print(f"== {config} / {split}: 0 rows in this build; not declared in the card, skipped")
                continue
            data = load_dataset(str(package), config, split=split, **fresh)
            print(f"== {config} / {split}: {data.num_rows:,} rows; columns {data.column_names}")
            for row in data.select(range(min(3, data.num_rows))):
                print("  ", row)


if __name__ == "__main__":
    main()
