"""validate_msmarco_inputs at scale, with the passage store it now writes against without (the baseline).

    python bench/bench_validate.py [--sizes 300000 1000000]

A synthetic collection.tsv (bench/synthetic.py) with the demo's queries, qrels and answers (their
passage ids are below 12,000, so in every collection here). Each run in a fresh interpreter: time
and peak RSS (VmHWM). Extrapolated to 8,841,823 passages on the line through the two sizes: the
collection is the only input that grows here (MS MARCO's train queries and qrels add ~0.2 GB).
"""

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import MSMARCO, linear, run_fresh, synthetic_table, write_tsv  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "resources/demo"
INPUTS = ["queries.train.tsv", "qrels.train.tsv", "queries.dev.small.tsv", "qrels.dev.small.tsv",
          "answers.dev.small.jsonl"]


def validate(collection, store):
    from irdata.heldout import Source
    from irdata.sources.msmarco import validate_msmarco_inputs

    heldout = [Source("dev_queries", str(DEMO / "queries.dev.small.tsv")),
               Source("heldout_queries[0]", str(DEMO / "queries.test.tsv"))]
    report = validate_msmarco_inputs(collection, *(DEMO / name for name in INPUTS), heldout, passage_store=store)
    return report["rows"]["collection"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[300_000, 1_000_000])
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            tsv = Path(tmp) / f"c{n}.tsv"
            write_tsv(synthetic_table(n), tsv)
            base = run_fresh("bench_validate", "validate", str(tsv), None)
            new = run_fresh("bench_validate", "validate", str(tsv), str(Path(tmp) / f"s{n}.arrow"))
            assert base["result"] == new["result"] == n
            rows.append({"n": n, "MB": tsv.stat().st_size / 2**20, "base s": base["seconds"],
                         "base peak": base["peak_mb"], "s": new["seconds"], "peak": new["peak_mb"]})
            print(rows[-1], flush=True)
    print("\n| passages | collection.tsv MB | seconds (without / with store) | peak RSS MB (without / with store) |")
    print("|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:,} | {r['MB']:.0f} | {r['base s']:.1f} / {r['s']:.1f} "
              f"| {r['base peak']:.0f} / {r['peak']:.0f} |")
    sizes = [r["n"] for r in rows]
    at = {key: linear(sizes, [r[key] for r in rows]) for key in ("base s", "s", "base peak", "peak")}
    print(f"\nExtrapolated to MS MARCO ({MSMARCO:,} passages) on the line through {sizes[-2:]}: "
          f"{at['base s']:.0f} s without the store, {at['s']:.0f} s with it; peak {at['base peak'] / 1024:.1f} GB "
          f"without, {at['peak'] / 1024:.1f} GB with it.")


if __name__ == "__main__":
    main()
