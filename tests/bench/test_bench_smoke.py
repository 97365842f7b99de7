"""Every benchmark in bench/ runs at a tiny size, so that none breaks while the README quotes its figures.
A smoke run: it must finish and print its report; no timing is asserted. A new bench gets its line here."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
# each bench's tiny size: the smallest arguments that still take every path of its report
SMOKE = {
    "bench_agent_job.py": ["--sizes", "1000", "--shard-queries", "2", "--searches", "1"],
    "bench_audit_ranking.py": ["--runs", "3", "--queries", "4", "--judged", "12", "--run-queries", "6", "--depth",
                               "120"],
    "bench_assemble.py": ["--train-queries", "300", "--shards", "2", "--dev-queries", "30", "--dev-shards", "1"],
    "bench_beir_corpus.py": ["--sizes", "2000"],
    "bench_bm25.py": ["--sizes", "2000", "--one-shot-max", "2000", "--queries", "5", "--reference-queries", "2"],
    "bench_dag.py": ["--train", "4", "--dev", "2"],
    "bench_downstream.py": ["--pairs", "8", "--steps", "2", "--batch", "4", "--passages", "16", "--threads", "1"],
    "bench_dedup.py": ["--queries", "2000", "--heldout", "100"],
    "bench_dense.py": ["--sizes", "2000", "--queries", "5", "--kinds", "flat", "hnsw", "hnsw_sq8", "ivf_pq",
                       "--ef-search", "16", "--nprobe", "4", "--encode", "8"],
    "bench_llm_client.py": ["--calls", "100", "--levels", "8", "--rounds", "1"],
    "bench_local_model.py": ["--pairs", "2", "--candidates", "2", "--episodes", "1", "--rounds", "1"],
    "bench_passage_store.py": ["--sizes", "2000", "--fetches", "50"],
    # the smallest scale: 442 passages, 25 train queries in 1 shard, 10 dev queries, production's budgets
    "bench_production_sim.py": ["--scale", "0.00005"],
    # a build's benchmarks/ folder: three jobs of two rules
    "bench_stage_costs.py": ["tests/bench/tiny_benchmarks"],
    # the demo's qrels name passages up to 12,000, all of which the synthetic collection must hold
    "bench_validate.py": ["--sizes", "12000"],
}


def test_every_bench_has_a_smoke_run():
    assert sorted(p.name for p in (REPO / "bench").glob("bench_*.py")) == sorted(SMOKE)


# what requirements-test.txt adds and tools/install.sh does not install
TEST_ONLY = ("pytest", "hypothesis")
# a whole Snakemake build (the rest are single processes): with the end-to-end tests
END_TO_END = {"bench_production_sim.py"}
WORK_FOLDER = {"bench_assemble.py", "bench_production_sim.py"}


@pytest.mark.parametrize("bench", [pytest.param(b, marks=pytest.mark.workflow) if b in END_TO_END else b
                                   for b in sorted(SMOKE)])
def test_bench_runs_at_a_tiny_size(bench, tmp_path):
    # as after the README's install, which brings no test requirements: importing one fails
    absent = tmp_path / "test_requirements_absent"
    absent.mkdir()
    for name in TEST_ONLY:
        (absent / f"{name}.py").write_text(f"raise ImportError('{name} is a test requirement: a bench must run "
                                           "without it')\n")
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               PYTHONPATH=os.pathsep.join(filter(None, [str(absent), os.environ.get("PYTHONPATH")])))
    # a bench that keeps its work folder for a look afterwards keeps it under the test's own
    keep = ["--dir", str(tmp_path)] if bench in WORK_FOLDER else []
    proc = subprocess.run([sys.executable, str(REPO / "bench" / bench), *SMOKE[bench], *keep], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{bench} {' '.join(SMOKE[bench])}:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    assert proc.stdout.strip(), f"{bench} printed no report"
