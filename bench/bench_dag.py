"""Cost of planning the production build: `snakemake -n doubting` with config/production.yaml at a given shard
count, against a baseline Snakefile generated from the planned DAG: the same rules and jobs, with the same files,
logs, benchmarks, threads, resources and conda envs, whose inputs and params are looked up in the plan instead
of computed. Snakemake's own work is the same in both, so the difference is the project's own work per job
(imports, code hashes, stage settings, input functions). Then the same with several named builds of that shape
(`--builds`, 8 by default; irdata/builds.py): their planning against one build's.

    .venv/bin/python bench/bench_dag.py                      # 1,000 train + 100 dev shards (the issue's shape)
    .venv/bin/python bench/bench_dag.py --train 200 --dev 20 --profile   # smaller, and the project's hot spots

Prints JSON: jobs, CPU seconds of each dry-run, the project's CPU per job, and the CPU of planning `--builds`
builds over that of one (`builds_cpu_ratio`, to stay under the number of builds).
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
    done = subprocess.run(prefix + args + ["-n", "--quiet", "rules"], cwd=cwd, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"the dry-run in {cwd} failed:\n{done.stdout}{done.stderr}")
    out = done.stdout
    cpu, wall = child_cpu() - cpu, time.perf_counter() - wall
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", out, re.M)}, cpu, wall


# about the size of MS MARCO's collection.tsv (2.9 GB): the encoding jobs are counted from the file's size
# (retrieval.dense.encode_shard_mb), 46 of them in production
MSMARCO_COLLECTION_BYTES = 3_060_000_000


def production_copy(root: Path, train: int, dev: int) -> list[str]:
    import yaml

    copy_repo(root)
    config = yaml.safe_load((root / "config/production.yaml").read_text())
    d = config["builds"]["msmarco"]
    for path in [d[k] for k in ("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels",
                                "dev_answers")] + d["heldout_queries"] + [d["audit"]["qrels"], d["audit"]["queries"]]:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(f"placeholder of {path}\n")  # a held-out copy of the train file stops the planning
    os.truncate(root / d["collection"], MSMARCO_COLLECTION_BYTES)  # sparse: nothing reads it in a dry-run
    for folder in d["audit"]["runs"]:  # a folder of TREC run files: one stands for them
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "run.trec").write_text("placeholder\n")
    (root / "shards.yaml").write_text(yaml.safe_dump({"builds": {"msmarco": {"shards": {"train": train, "dev": dev}}}}))
    return ["doubting", "--configfile", "config.yaml", "config/production.yaml", "shards.yaml"]


def more_builds(root: Path, args: list[str], builds: int, train: int, dev: int) -> list[str]:
    """`args` with an overlay of builds-1 more builds of the production build's shape, each under its name."""
    import yaml

    production = yaml.safe_load((root / "config/production.yaml").read_text())["builds"]["msmarco"]
    more = {f"msmarco-{i}": {**production, "shards": {"train": train, "dev": dev}} for i in range(2, builds + 1)}
    (root / "builds.yaml").write_text(yaml.safe_dump({"builds": more}))
    return [*args, "builds.yaml"]


# Plans a workflow through Snakemake's API and writes, per rule, what each planned job got: its inputs and
# params, the rule's output, log and benchmark patterns, threads, declared resources and conda env.
DUMP = """
import json, os, sys
from pathlib import Path
from snakemake.api import SnakemakeApi
from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

target, configfiles = sys.argv[1], sys.argv[2:]
with SnakemakeApi(OutputSettings()) as api:
    workflow_api = api.workflow(resource_settings=ResourceSettings(cores=1), snakefile=Path("Snakefile"),
                                config_settings=ConfigSettings(configfiles=[Path(c) for c in configfiles]))
    dag_api = workflow_api.dag(DAGSettings(targets={target}))
    workflow = dag_api.workflow_api._workflow
    workflow.dag_settings = dag_api.dag_settings
    workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
    workflow._build_dag()
    rules = {}
    for job in workflow.dag.jobs:
        rule = job.rule
        conda = rule.conda_env if isinstance(rule.conda_env, str) else None
        spec = rules.setdefault(rule.name, {
            "output": [str(f) for f in rule.output], "log": [str(f) for f in rule.log],
            "benchmark": str(rule.benchmark) if rule.benchmark else None,
            "conda": os.path.relpath(rule.basedir.join(conda).get_path_or_uri(secret_free=True)) if conda else None,
            "resources": {k: job.resources[k] for k in rule.resources
                          if not k.startswith("_") and isinstance(job.resources.get(k), int)},
            "threads": job.threads, "jobs": {}})
        spec["jobs"][json.dumps(dict(job.wildcards_dict), sort_keys=True)] = {
            "input": [str(f) for f in job.input], "params": dict(job.params.items())}
    json.dump(rules, sys.stdout, default=repr)
"""

# The baseline: the same rules, jobs, files, logs, benchmarks, threads, resources and conda envs, with each
# job's inputs and params looked up in the planned DAG (one function a rule's inputs, one a param): what
# Snakemake itself costs for this DAG when the functions it calls do no work.
BASELINE_HEAD = """import json
PLANNED = json.load(open("dag.json"))


def job(rule, wildcards):
    return PLANNED[rule]["jobs"][json.dumps(dict(wildcards.items()), sort_keys=True)]

"""


def baseline_rule(name: str, spec: dict, target: bool) -> str:
    lines = [f"rule {name}:"]
    if target:
        lines.append(f"    input: PLANNED[{name!r}]['jobs']['{{}}']['input']")
    else:
        lines.append(f"    input: lambda w: job({name!r}, w)['input']")
        lines.append(f"    output: {', '.join(repr(p) for p in spec['output'])}")
    if spec["log"]:
        lines.append(f"    log: {', '.join(repr(p) for p in spec['log'])}")
    if spec["benchmark"]:
        lines.append(f"    benchmark: {spec['benchmark']!r}")
    if spec["conda"]:
        lines.append(f"    conda: {spec['conda']!r}")
    if not target:
        lines.append(f"    threads: {spec['threads']}")
    if spec["resources"]:
        lines.append("    resources: " + ", ".join(f"{k}={v!r}" for k, v in spec["resources"].items()))
    params = sorted({key for j in spec["jobs"].values() for key in j["params"]})
    if params:
        lines.append("    params: " + ", ".join(f"{key}=lambda w: job({name!r}, w)['params'][{key!r}]"
                                                for key in params))
    if not target:
        lines.append('    shell: "true"')
    return "\n".join(lines) + "\n"


def baseline_copy(ours: Path, root: Path, args: list[str]) -> list[str]:
    """A Snakefile of the same planned jobs without the project's code (BASELINE_HEAD), beside `ours`."""
    import shutil

    target, configfiles = args[0], [a for a in args[2:]]
    dump = subprocess.run([sys.executable, "-c", DUMP, target, *configfiles], cwd=ours, capture_output=True,
                          text=True, check=True).stdout
    rules = json.loads(dump)
    root.mkdir(parents=True)
    (root / "dag.json").write_text(dump)
    shutil.copytree(ours / "envs", root / "envs")
    for path in {p for spec in rules.values() for j in spec["jobs"].values() for p in j["input"]}:
        if (ours / path).exists() and not (root / path).exists():  # the source files (placeholders)
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).symlink_to((ours / path).resolve())
    order = [target] + sorted(set(rules) - {target})  # the target first: the default
    (root / "Snakefile").write_text(BASELINE_HEAD + "\n".join(
        baseline_rule(name, rules[name], name == target) for name in order))
    return [target]


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
    parser.add_argument("--builds", type=int, default=8, help="named builds of that shape planned together")
    parser.add_argument("--profile", action="store_true", help="also list the project's functions by cumulative time")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ours_root = Path(tmp) / "ours"
        ours_args = production_copy(ours_root, args.train, args.dev)
        counts, ours_cpu, ours_wall = dry_run(ours_root, ours_args)
        base_root = Path(tmp) / "baseline"
        base_counts, base_cpu, base_wall = dry_run(base_root, baseline_copy(ours_root, base_root, ours_args))
        result = {"train_shards": args.train, "dev_shards": args.dev, "encode_jobs": counts["encode_passages"],
                  "jobs": counts["total"],
                  "baseline_jobs": base_counts["total"], "cpu_s": round(ours_cpu, 2), "wall_s": round(ours_wall, 2),
                  "baseline_cpu_s": round(base_cpu, 2), "ratio_to_baseline": round(ours_cpu / base_cpu, 2),
                  "project_ms_per_job": round(1000 * (ours_cpu - base_cpu) / counts["total"], 2)}
        many_counts, many_cpu, _ = dry_run(ours_root, more_builds(ours_root, ours_args, args.builds, args.train,
                                                                  args.dev))
        result |= {"builds": args.builds, "builds_jobs": many_counts["total"], "builds_cpu_s": round(many_cpu, 2),
                   "builds_cpu_ratio": round(many_cpu / ours_cpu, 2)}
        print(json.dumps(result, indent=1))
        if args.profile:
            dry_run(ours_root, ours_args, Path(tmp) / "ours.prof")
            print("\n".join(hot_spots(Path(tmp) / "ours.prof")))


if __name__ == "__main__":
    main()
