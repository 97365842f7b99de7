"""Cost of planning the production build: `snakemake -n doubting` with config/production.yaml at a given shard
count, against a baseline Snakefile with the same jobs and none of the project's code (so the difference is
the project's own work per job: code hashes, stage settings, input functions).

    .venv/bin/python bench/bench_dag.py                      # 1,000 train + 100 dev shards (the issue's shape)
    .venv/bin/python bench/bench_dag.py --train 200 --dev 20 --profile   # smaller, and the project's hot spots

Prints JSON: jobs, CPU seconds of each dry-run, and the project's CPU per job.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from repo_copy import copy_repo  # noqa: E402


def child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def dry_run(cwd: Path, args: list[str], profile: Path | None = None) -> tuple[dict, float, float]:
    """(job counts, CPU seconds, wall seconds) of one dry-run."""
    prefix = [sys.executable] + (["-m", "cProfile", "-o", str(profile)] if profile else []) + ["-m", "snakemake"]
    cpu, wall = child_cpu(), time.perf_counter()
    out = subprocess.run(prefix + args + ["-n", "--quiet", "rules"], cwd=cwd, capture_output=True, text=True,
                         check=True).stdout
    cpu, wall = child_cpu() - cpu, time.perf_counter() - wall
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", out, re.M)}, cpu, wall


# about the size of MS MARCO's collection.tsv (2.9 GB): the encoding jobs are counted from the file's size
# (retrieval.dense.encode_shard_mb), 46 of them in production
MSMARCO_COLLECTION_BYTES = 3_060_000_000


def production_copy(root: Path, train: int, dev: int) -> list[str]:
    import yaml

    copy_repo(root)
    config = yaml.safe_load((root / "config/production.yaml").read_text())
    d = config["doubting"]
    for path in [d[k] for k in ("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels",
                                "dev_answers")] + d["heldout_queries"] + [d["audit"]["qrels"], d["audit"]["queries"]]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("placeholder\n")
    os.truncate(root / d["collection"], MSMARCO_COLLECTION_BYTES)  # sparse: nothing reads it in a dry-run
    for folder in d["audit"]["runs"]:  # a folder of TREC run files: one stands for them
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "run.trec").write_text("placeholder\n")
    (root / "shards.yaml").write_text(yaml.safe_dump({"doubting": {"shards": {"train": train, "dev": dev}}}))
    return ["doubting", "--configfile", "config.yaml", "config/production.yaml", "shards.yaml"]


BASELINE = '''
TRAIN, DEV, ENCODE = {train}, {dev}, {encode}
SPLITS = {{"train": TRAIN, "dev": DEV}}
rule all:
    input: "release/done"
rule validate:
    input: "in/collection.tsv"
    output: "w/inputs.json"
    shell: "touch {{output}}"
rule shard:
    input: rules.validate.output
    output: expand("w/shards/train/{{i:04d}}.txt", i=range(TRAIN)), expand("w/shards/dev/{{i:04d}}.txt", i=range(DEV))
    shell: "touch {{output}}"
rule encode:
    input: rules.validate.output
    output: "w/enc/{{e}}.npy"
    shell: "touch {{output}}"
rule index:
    input: expand("w/enc/{{e:04d}}.npy", e=range(ENCODE))
    output: "w/index"
    shell: "touch {{output}}"
rule agent:
    input: shard="w/shards/{{split}}/{{s}}.txt", index="w/index"
    output: "w/agent/{{split}}/{{s}}.parquet", "w/stats/agent/{{split}}/{{s}}.json"
    params: settings={{"budget": 1}}, code="x"
    shell: "touch {{output}}"
rule grade:
    input: "w/agent/{{split}}/{{s}}.parquet"
    output: "w/grades/{{split}}/{{s}}.parquet", "w/stats/grade/{{split}}/{{s}}.json"
    params: settings={{"mode": 1}}, code="x"
    shell: "touch {{output}}"
rule answer:
    input: "w/grades/train/{{s}}.parquet"
    output: "w/answers/train/{{s}}.parquet", "w/stats/answer/train/{{s}}.json"
    params: settings={{"n": 1}}, code="x"
    shell: "touch {{output}}"
rule wood:
    input: "w/answers/train/{{s}}.parquet"
    output: "w/wood/train/{{s}}.parquet", "w/stats/wood/train/{{s}}.json"
    params: settings={{"n": 1}}, code="x"
    shell: "touch {{output}}"
KINDS = {{"train": ["agent", "grades", "answers", "wood"], "dev": ["agent", "grades"]}}
STATS = {{"train": ["agent", "grade", "answer", "wood"], "dev": ["agent", "grade"]}}
rule assemble:
    input: [f"w/{{k}}/{{sp}}/{{i:04d}}.parquet" for sp, n in SPLITS.items() for k in KINDS[sp] for i in range(n)]
    output: "w/assembled"
    shell: "touch {{output}}"
rule gate:
    input: [f"w/stats/{{k}}/{{sp}}/{{i:04d}}.json" for sp, n in SPLITS.items() for k in STATS[sp] for i in range(n)]
    output: "w/gate"
    shell: "touch {{output}}"
rule release:
    input: "w/assembled", "w/gate"
    output: "release/done"
    shell: "touch {{output}}"
'''


def baseline_copy(root: Path, train: int, dev: int, encode: int) -> list[str]:
    root.mkdir(parents=True)
    (root / "in").mkdir()
    (root / "in/collection.tsv").write_text("x\n")
    (root / "Snakefile").write_text(BASELINE.format(train=train, dev=dev, encode=encode))
    return []


def hot_spots(profile: Path, top: int = 12) -> list[str]:
    import pstats

    stats = pstats.Stats(str(profile))
    rows = [(v[3], f"{k[0].split('workflow_scripts/')[-1]}:{k[1]} {k[2]}") for k, v in stats.stats.items()
            if "irdata" in k[0] or "/rules/" in k[0]]
    return [f"{cum:6.2f} s  {where}" for cum, where in sorted(rows, reverse=True)[:top]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train", type=int, default=1000)
    parser.add_argument("--dev", type=int, default=100)
    parser.add_argument("--profile", action="store_true", help="also list the project's functions by cumulative time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours_root = Path(tmp) / "ours"
        ours_args = production_copy(ours_root, args.train, args.dev)
        counts, ours_cpu, ours_wall = dry_run(ours_root, ours_args)
        base_root = Path(tmp) / "baseline"
        baseline_copy(base_root, args.train, args.dev, counts["encode_passages"])
        base_counts, base_cpu, base_wall = dry_run(base_root, [])
        result = {"train_shards": args.train, "dev_shards": args.dev, "encode_jobs": counts["encode_passages"],
                  "jobs": counts["total"],
                  "baseline_jobs": base_counts["total"], "cpu_s": round(ours_cpu, 2), "wall_s": round(ours_wall, 2),
                  "baseline_cpu_s": round(base_cpu, 2), "ratio_to_baseline": round(ours_cpu / base_cpu, 2),
                  "project_ms_per_job": round(1000 * (ours_cpu - base_cpu) / counts["total"], 2)}
        print(json.dumps(result, indent=1))
        if args.profile:
            dry_run(ours_root, ours_args, Path(tmp) / "ours.prof")
            print("\n".join(hot_spots(Path(tmp) / "ours.prof")))


if __name__ == "__main__":
    main()
