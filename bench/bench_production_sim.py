"""A simulated production build: the whole Doubting MS MARCO workflow, config/production.yaml with its budgets,
over synthetic data of production shape at a fraction of its size, against an instant OpenAI-compatible server
of the project's own on 127.0.0.1 (tests/model_server.py, its agent paging through rankings to the budgets).
Every stage is timed by its rule's `benchmark:` file; the workflow's own cost (everything but the model) is
then extrapolated to the full build, stage by stage. This is the number a cluster user plans with.

    .venv/bin/python bench/bench_production_sim.py                 # 1/100: 88k passages, 5k train, 70 dev queries
    .venv/bin/python bench/bench_production_sim.py --scale 0.002   # a quick look
    .venv/bin/python bench/bench_production_sim.py --servers 8 --baseline   # routing against least-busy

Extrapolation: every stage's work grows with the passages (validation, BM25, encoding) or with the queries
(the LLM stages, assembly), so its CPU is multiplied by 1/scale; the dense index is the exception (a flat
index below retrieval.dense.hnsw_threshold here, an HNSW-SQ8 build at full size: see bench_dense.py).

Tokens: each server counts them as vLLM does, with the demo model's tokenizer (SmolLM2's; a 35B model's
differs by some percent) and a prefix cache of --cache-blocks blocks of --block-size tokens per server;
the build's llm.base_urls are all --servers servers and llm.routing is --routing. The JSON's `tokens`
are the LLM jobs' sums per stage (calls made, prompt, completion and cached prompt tokens: what the
release gate sums), per split with tokens per 1,000 of the stage's units, and extrapolated to the full
build split by split (`full_build`); GPU-hours at --prefill-tps and --decode-tps (tokens/s of one
server under load) are (prompt - cached) / prefill + completion / decode of the full build. With
--baseline the LLM stages are then run again on fresh servers (empty caches) with a fresh journal and
llm.routing least_busy, and the JSON gains `baseline` (its tokens) and `uncached_vs_baseline`.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "workflow_scripts"))

from synthetic import MSMARCO, synthetic_queries, synthetic_table, write_tsv  # noqa: E402

from model_server import ModelServer  # noqa: E402
from repo_copy import copy_repo  # noqa: E402

TRAIN_QUERIES, DEV_QUERIES, TRAIN_SHARDS = 502_939, 6_980, 503
# stages whose work grows with the passages, and with the queries
BY_PASSAGES = {"validate_msmarco_inputs", "index_bm25", "encode_passages", "index_dense"}


def write_inputs(root: Path, passages: int, train: int, dev: int, seed: int = 0) -> None:
    """MS MARCO-format files at the production config's paths."""
    data = root / "data/msmarco"
    data.mkdir(parents=True)
    table = synthetic_table(passages, seed)
    write_tsv(table, data / "collection.tsv")
    ids = np.asarray(table.column("id").to_pylist(), dtype=object)
    rng = np.random.default_rng(seed)
    texts = synthetic_queries(train + 2 * dev, seed + 1)
    splits = {"train": (0, train), "dev": (train, dev), "eval": (train + dev, dev)}
    for name, (start, n) in splits.items():
        file = {"train": "queries.train.tsv", "dev": "queries.dev.small.tsv", "eval": "queries.eval.tsv"}[name]
        (data / file).write_text("".join(f"{start + i + 1}\t{texts[start + i]}\n" for i in range(n)))
    shutil.copyfile(data / "queries.dev.small.tsv", data / "queries.dev.tsv")
    for name, file in (("train", "qrels.train.tsv"), ("dev", "qrels.dev.small.tsv")):
        start, n = splits[name]
        positives = rng.choice(ids, size=n)
        (data / file).write_text("".join(f"{start + i + 1}\t0\t{p}\t1\n" for i, p in enumerate(positives)))
    start, n = splits["dev"]
    (data / "dev_v2.1.json").write_text("".join(
        json.dumps({"query_id": str(start + i + 1), "answers": [f"answer {i}"]}) + "\n" for i in range(n)))


BUILD = "msmarco"  # config/production.yaml's build
TOKEN_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cached_prompt_tokens")
LLM_RULES = ("agent_search", "grade", "generate_answer", "wood")


def overlay(servers: list[ModelServer], train_shards: int, routing: str) -> dict:
    return {
        # the downstream comparison is GPU training and encoding, measured by bench_downstream.py, not here
        "builds": {BUILD: {"shards": {"train": train_shards, "dev": 1},
                               "audit": {"qrels": None, "queries": None, "runs": []},
                               "release_ledger": "work/release-ledger.json", "downstream": {"enabled": False}}},
        "llm": {"base_urls": [s.url for s in servers], "journal_dir": f"cache/llm_journal-{routing}",
                "max_in_flight": 64, "routing": routing},
        "retrieval": {"dense": {"device": None, "batch_size": 64}},
    }


def stage_costs(root: Path) -> dict:
    """Per rule: jobs, wall seconds and CPU seconds summed, largest max RSS (MB), from the benchmark files."""
    costs = defaultdict(lambda: {"jobs": 0, "s": 0.0, "cpu_s": 0.0, "max_rss_mb": 0.0})
    for path in sorted((root / "benchmarks").rglob("*.tsv")):
        rule = path.relative_to(root / "benchmarks").parts[0].removesuffix(".tsv")
        with open(path) as fh:
            row = next(csv.DictReader(fh, delimiter="\t"))
        c = costs[rule]
        c["jobs"] += 1
        c["s"] += float(row["s"])
        c["cpu_s"] += float(row["cpu_time"]) if row["cpu_time"] not in ("", "NA") else 0.0
        c["max_rss_mb"] = max(c["max_rss_mb"], float(row["max_rss"]) if row["max_rss"] not in ("", "NA") else 0.0)
    return dict(costs)


def token_table(root: Path, factors: dict[str, float], prefill_tps: float | None, decode_tps: float | None) -> tuple:
    """(tokens per stage, their total), from the LLM jobs' stats files (what the release gate sums), per
    split and extrapolated to the full build split by split (train and dev episodes differ by far)."""
    stages, total = {}, {**dict.fromkeys(TOKEN_KEYS, 0), "full_build": dict.fromkeys(TOKEN_KEYS, 0)}
    for stage in LLM_RULES:
        row = {**dict.fromkeys(TOKEN_KEYS, 0), "full_build": dict.fromkeys(TOKEN_KEYS, 0), "splits": {}}
        for split, factor in factors.items():
            t, units = dict.fromkeys(TOKEN_KEYS, 0), 0
            for path in sorted((root / "work/doubting" / BUILD / "stats" / stage / split).glob("*.json")):
                record = json.loads(path.read_text())
                units += record["failures"]["total"]
                for counts in record["llm"]["tokens"].values():
                    for k in TOKEN_KEYS:
                        t[k] += counts[k]
            if not units:
                continue
            row["splits"][split] = {**t, "units": units,
                                    "per_1000_units": {k: round(t[k] * 1000 / units) for k in TOKEN_KEYS[1:]}}
            for k in TOKEN_KEYS:
                row[k] += t[k]
                row["full_build"][k] += round(t[k] * factor)
                total[k] += t[k]
                total["full_build"][k] += round(t[k] * factor)
        stages[stage] = row
    for row in (*stages.values(), total):
        prompt = row["prompt_tokens"]
        row["cached_share"] = round(row["cached_prompt_tokens"] / prompt, 3) if prompt else 0.0
        row["uncached_prompt_tokens"] = row["prompt_tokens"] - row["cached_prompt_tokens"]
        full = row["full_build"]
        if prefill_tps and decode_tps:
            row["full_gpu_h"] = round(((full["prompt_tokens"] - full["cached_prompt_tokens"]) / prefill_tps
                                       + full["completion_tokens"] / decode_tps) / 3600)
    return stages, total


def build(root: Path, args, shards: int, routing: str, *extra: str) -> tuple[float, list[int]]:
    """One `snakemake doubting` on fresh servers: (wall s, requests per server)."""
    servers = [ModelServer(agent_policy="deep", prefix_cache_blocks=args.cache_blocks, block_size=args.block_size)
               for _ in range(args.servers)]
    try:
        (root / "sim.yaml").write_text(yaml.safe_dump(overlay(servers, shards, routing)))
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "snakemake", "doubting", "--profile", "profiles/local",
                               "--cores", str(args.cores), "--configfile", "config.yaml", "config/production.yaml",
                               "sim.yaml", *extra], cwd=root, capture_output=True, text=True)
        wall = time.perf_counter() - start
    finally:
        for server in servers:
            server.close()
    if proc.returncode != 0:
        sys.exit(f"the simulated build failed (see {root}/logs):\n{proc.stderr[-3000:]}")
    return wall, [len(s.log) for s in servers]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.01)
    parser.add_argument("--dir", type=Path, default=None, help="work folder (default: a temporary one)")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--servers", type=int, default=1, help="model servers, all in llm.base_urls")
    parser.add_argument("--routing", choices=("query", "least_busy"), default="query", help="llm.routing")
    parser.add_argument("--cache-blocks", type=int, default=32_768,
                        help="prefix cache per server, in blocks (0: none); 32,768 x 16 tokens ~ a 35B model's "
                             "KV cache on one 80 GB GPU")
    parser.add_argument("--block-size", type=int, default=16)
    parser.add_argument("--prefill-tps", type=float, default=None, help="prompt tokens/s of one server")
    parser.add_argument("--decode-tps", type=float, default=None, help="generated tokens/s of one server")
    parser.add_argument("--baseline", action="store_true",
                        help="then run the LLM stages again with llm.routing least_busy, for comparison")
    args = parser.parse_args()
    passages, train = round(MSMARCO * args.scale), round(TRAIN_QUERIES * args.scale)
    dev = max(10, round(DEV_QUERIES * args.scale))
    shards = max(1, round(TRAIN_SHARDS * args.scale))
    base = args.dir or Path(tempfile.mkdtemp(prefix="irdata-sim."))
    root = copy_repo(base / "wf")
    write_inputs(root, passages, train, dev)
    wall, per_server = build(root, args, shards, args.routing)
    manifest = json.loads((root / "results/doubting-ms-marco/MANIFEST.json").read_text())
    costs = stage_costs(root)
    factor_passages, factor_queries = MSMARCO / passages, TRAIN_QUERIES / train
    factors = {"train": factor_queries, "dev": DEV_QUERIES / dev}
    tokens, tokens_total = token_table(root, factors, args.prefill_tps, args.decode_tps)
    baseline = None
    if args.baseline:
        _, base_per_server = build(root, args, shards, "least_busy", "--forcerun", *LLM_RULES)
        base_tokens, base_total = token_table(root, factors, args.prefill_tps, args.decode_tps)
        baseline = {"routing": "least_busy", "calls_per_server": base_per_server, "tokens": base_tokens,
                    "tokens_total": base_total,
                    "uncached_vs_baseline": round(tokens_total["uncached_prompt_tokens"]
                                                  / max(1, base_total["uncached_prompt_tokens"]), 3)}
    table = []
    for rule, c in sorted(costs.items(), key=lambda kv: -kv[1]["cpu_s"]):
        factor = factor_passages if rule in BY_PASSAGES else factor_queries
        table.append({"rule": rule, **{k: round(v, 1) for k, v in c.items()}, "x": round(factor),
                      "full_cpu_h": round(c["cpu_s"] * factor / 3600, 2)})
    print(json.dumps({"scale": args.scale, "passages": passages, "train_queries": train, "dev_queries": dev,
                      "train_shards": shards, "wall_s": round(wall, 1), "rows": manifest["rows"],
                      "max_agent_rank": {s: manifest["counts"][s]["max_agent_rank"] for s in ("train", "dev")},
                      "llm_calls_served": sum(per_server), "calls_per_server": per_server, "servers": args.servers,
                      "routing": args.routing, "cache_blocks": args.cache_blocks, "block_size": args.block_size,
                      "stages": table, "full_cpu_h_total": round(sum(r["full_cpu_h"] for r in table), 1),
                      "tokens": tokens, "tokens_total": tokens_total, "baseline": baseline}, indent=1))
    print(f"work folder: {root}", file=sys.stderr)


if __name__ == "__main__":
    main()
