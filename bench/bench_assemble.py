"""`assemble` at full MS MARCO scale on synthetic shards: time and peak memory.

    python bench/bench_assemble.py [--train-queries 500607] [--mean-proposals 19.7] [--shards 500]
                                   [--dev-queries 6980] [--dev-mean-proposals 204] [--dir DIR [--reuse]]
                                   [--threads N]

Writes synthetic intermediate files in the exact formats of irdata.doubting.intermediate (default
about 10.4M train judgment rows on 500k queries in 500 shards, 1.4M dev rows), then times
`assemble` against a named baseline run in the same run: reading every shard's agent, grades and
WOOD parquet files with no processing (the read floor), in this process. Target (issue 14): under
45 s CPU and 2 GB at the default scale. Peak RSS is that of a fresh process that only assembles.
CPU seconds (user+sys, all threads) are reported beside wall seconds, and the ratios of both,
because on a shared machine the wall time mostly measures the other load.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow.parquet as pq

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow_scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the synthetic shard writer

from irdata.doubting.assemble import assemble, shard_paths_for  # noqa: E402
from irdata.logs import peak_rss_mb  # noqa: E402
from synthetic_doubting import Work, synthetic_split  # noqa: E402

BATCHES = {"train": {"default": "bench-train", "batches": []}, "dev": {"default": "bench-dev", "batches": []}}
GRADING = {"train": "query_only", "dev": "answer_hinted"}


def run_assemble(root, n_train_shards, n_dev_shards, threads=None):
    """Assemble once in this process; print time, peak RSS and row counts as JSON."""
    w = Work(root)
    start, cpu = time.perf_counter(), _cpu()
    stats = assemble(Path(root) / "out", _ids(w), _shards(w, n_train_shards, n_dev_shards),
                     Path(root) / "qrels.train.tsv", Path(root) / "qrels.dev.tsv", BATCHES, GRADING, threads=threads)
    print(json.dumps({"seconds": time.perf_counter() - start, "cpu_seconds": _cpu() - cpu,
                      "peak_rss_mb": peak_rss_mb(), "rows": stats["rows"]}))


def _cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _ids(w):
    return {k: str(w.base / "ids" / f"{k}.{'tsv' if k == 'train_excluded' else 'txt'}")
            for k in ("train_collection", "train_excluded", "dev_all")}


def _shards(w, n_train, n_dev):
    return {s: shard_paths_for(str(w.root / "work"), s, n) for s, n in (("train", n_train), ("dev", n_dev))}


def baseline_read(w, n_train, n_dev):
    rows = 0
    for split, paths in _shards(w, n_train, n_dev).items():
        for p in paths:
            for f in (p.agent, p.grades, p.wood):
                if f:
                    rows += pq.read_table(f).num_rows
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train-queries", type=int, default=500_607)
    parser.add_argument("--mean-proposals", type=float, default=19.7)
    parser.add_argument("--shards", type=int, default=500)
    parser.add_argument("--dev-queries", type=int, default=6_980)
    parser.add_argument("--dev-mean-proposals", type=float, default=204)
    parser.add_argument("--dev-shards", type=int, default=16)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--reuse", action="store_true", help="reuse the synthetic shards already in --dir")
    parser.add_argument("--threads", type=int, default=None, help="assemble's threads (default: its own)")
    parser.add_argument("--assemble-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.assemble_only:
        run_assemble(args.dir, args.shards, args.dev_shards, args.threads)
        return
    root = Path(args.dir or tempfile.mkdtemp(prefix="bench_assemble."))
    w = Work(root)
    if not (args.reuse and (w.base / "ids/dev_all.txt").exists()):
        start = time.perf_counter()
        _, train_ids = synthetic_split(w, "train", args.train_queries, args.shards, args.mean_proposals, 60, 1.06)
        _, dev_ids = synthetic_split(w, "dev", args.dev_queries, args.dev_shards, args.dev_mean_proposals, 400, 1.07)
        w.ids(train_ids, dev_ids)
        w.meta()
        print(f"synthetic shards written in {time.perf_counter() - start:.0f} s under {root}", flush=True)

    start, cpu = time.perf_counter(), _cpu()
    read_rows = baseline_read(w, args.shards, args.dev_shards)
    baseline, baseline_cpu = time.perf_counter() - start, _cpu() - cpu

    # assemble in a fresh process, so that its peak RSS is its own
    command = [sys.executable, __file__, "--assemble-only", "--dir", str(root), "--shards", str(args.shards),
               "--dev-shards", str(args.dev_shards)] + (["--threads", str(args.threads)] if args.threads else [])
    proc = subprocess.run(command, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"assemble failed:\n{proc.stderr[-4000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    took, rss, rows, cpu = result["seconds"], result["peak_rss_mb"], result["rows"], result["cpu_seconds"]
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(json.dumps(rows, indent=1))
    print(f"baseline (read agent+grades+wood parquet, {read_rows:,} rows): {baseline:6.1f} s wall, "
          f"{baseline_cpu:6.1f} s CPU")
    print(f"assemble: {took:6.1f} s wall, {cpu:6.1f} s CPU (user+sys, all threads); peak RSS of the assemble "
          f"process {max(rss, child_rss):.0f} MB; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"ratio assemble/baseline: {took / baseline:.2f}x wall, {cpu / baseline_cpu:.2f}x CPU")


if __name__ == "__main__":
    main()
