"""Fixtures that run the real workflow with Snakemake in a fresh copy of the repository."""

from __future__ import annotations

import pytest

from repo_copy import REPO, TINY_DEMO, copy_repo
from workflow_run import Workflow

# the demo build's package rule record: the target that publishes results/doubting-ms-marco
PUBLISHED = "work/doubting/demo/published.json"


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory) -> Workflow:
    """The one small demo build, with the one end-to-end build of the downstream comparison
    (tests/tiny_demo.yaml leaves it out of the others): the tests of tests/workflow/test_demo_build.py, and
    tests/workflow/test_beir_build.py, which builds the BEIR example beside it in the same folder."""
    wf = Workflow(copy_repo(tmp_path_factory.mktemp("demo") / "wf"))
    (wf.root / "downstream.yaml").write_text("builds:\n  demo:\n    downstream: {enabled: true}\n")
    wf.args = ("--configfile", "config.yaml", str(TINY_DEMO.relative_to(REPO)), "downstream.yaml")
    proc = wf.snakemake("--profile", "profiles/local", "--cores", "2", PUBLISHED, *wf.args, timeout=3000)
    wf.console = proc.stdout + proc.stderr  # what the build printed (tests/workflow/test_demo_build.py)
    return wf


@pytest.fixture
def workflow(tmp_path) -> Workflow:
    return Workflow(copy_repo(tmp_path / "wf"))


@pytest.fixture(scope="session")
def served_wf(tmp_path_factory) -> Workflow:
    """The tiny demo with its indexes and first stages built once for every test whose LLM stages run against
    servers of the tests' own (tests/model_server.py): each such test names its own model, journal folder and
    release version in an `llm:` overlay, so their builds share the indexes and keep their LLM outputs apart."""
    wf = Workflow(copy_repo(tmp_path_factory.mktemp("served") / "wf"))
    # one train shard: a job fewer per LLM stage in each of these builds (the demo build of
    # tests/workflow/test_demo_build.py keeps two, and assembles them)
    (wf.root / "served.yaml").write_text("doubting:\n  shards: {train: 1, dev: 1}\n")
    wf.args = ("--configfile", "config.yaml", str(TINY_DEMO.relative_to(REPO)), "served.yaml")
    indexes = [f"work/index/demo/{kind}/settings.json" for kind in ("bm25", "dense")]
    wf.snakemake("--profile", "profiles/local", "--cores", "2", *indexes, "work/doubting/demo/inputs.json",
                 "work/doubting/demo/shards/dev/0000.txt", *wf.args, timeout=1800)
    return wf
