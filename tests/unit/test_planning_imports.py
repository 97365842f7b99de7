"""Planning imports only what planning needs: a dry-run of every build and the 44b Eval, in a copy of the
repository, loads none of the libraries that only jobs use (the models, the indexes, the statistics). Each of them
costs a second or more of every `snakemake` command (bench/bench_dag.py), and a settings constant kept in a stage's
module drags its whole import tree in (irdata/annotate/stages.py keeps the constants the settings read)."""

import json
import subprocess
import sys

from repo_copy import copy_repo

# the libraries of the jobs alone: torch and the training and encoding libraries, the indexes, the statistics
JOB_LIBRARIES = ("torch", "faiss", "bm25s", "Stemmer", "transformers", "sentence_transformers", "scipy")

# Snakemake's command line in this process, then the top-level packages and irdata modules it loaded
PLAN = """
import atexit, json, sys

out = sys.argv[1]

def loaded():
    names = sorted(sys.modules)
    with open(out, "w") as fh:
        json.dump({"tops": sorted({name.split(".")[0] for name in names}),
                   "irdata": [name for name in names if name.startswith("irdata")]}, fh)

atexit.register(loaded)
from snakemake.cli import main

sys.argv = ["snakemake", *sys.argv[2:]]
main()
"""


def planned_imports(root, *args) -> dict:
    out = root / "imports.json"
    done = subprocess.run([sys.executable, "-c", PLAN, str(out), "-n", "--profile", "profiles/local", "-q",
                           *args], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def test_planning_loads_no_job_library(tmp_path):
    root = copy_repo(tmp_path / "repo")
    # every rule family: a MS MARCO-format build with its audits and downstream comparison, a BEIR build, the 44b Eval
    loaded = planned_imports(root, "all", "--configfile", "config/beir-example.yaml")
    assert "irdata.stage_registry" in loaded["irdata"] and "irdata.downstream.plan" in loaded["irdata"]
    assert sorted(set(JOB_LIBRARIES) & set(loaded["tops"])) == []
