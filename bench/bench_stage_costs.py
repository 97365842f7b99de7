"""What a finished build's jobs cost, per rule: jobs, CPU and wall seconds, and the largest max RSS, from the
build's benchmarks/ folder (each rule's `benchmark:` file; irdata/stage_costs.py), as the markdown table that
README.md's "What each stage costs" quotes for the demo.

    .venv/bin/python bench/bench_stage_costs.py benchmarks    # in the folder the build ran in
"""

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "workflow_scripts"))

from irdata.stage_costs import cost_table, rule_names, stage_costs  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="a build's benchmarks/ folder")
    parser.add_argument("--rules", type=Path, default=REPO / "rules", help="the workflow's rules/ (its rule names)")
    args = parser.parse_args()
    if not args.folder.is_dir():
        parser.error(f"{args.folder}: no such folder (a build writes benchmarks/ in the folder it runs in)")
    print(cost_table(stage_costs(args.folder, rule_names(args.rules))), end="")


if __name__ == "__main__":
    main()
