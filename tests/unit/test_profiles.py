"""The profiles as Snakemake's own command line reads them: profiles/default (the workflow profile Snakemake adds
to every run from the workflow's folder, its keys winning over a --profile's) holds only the workflow's own
settings, so neither machine profile loses one of its keys to it; a bare run decides what to rebuild as the
profiles do and gets profiles/local's machine settings from the Snakefile (irdata/local_run.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from snakemake.cli import parse_args

from irdata.local_run import local_defaults
from irdata.sources.registry import SOURCES

REPO = Path(__file__).resolve().parents[2]
PROFILES = {name: yaml.safe_load((REPO / f"profiles/{name}/config.yaml").read_text())
            for name in ("default", "local", "slurm")}


def test_the_workflow_profile_shares_no_key_with_a_machine_profile_and_sets_no_machine_setting():
    default = set(PROFILES["default"])
    assert default & set(PROFILES["local"]) == set() and default & set(PROFILES["slurm"]) == set()
    assert default.isdisjoint({"cores", "jobs", "executor", "resources", "default-resources", "keep-going",
                               "latency-wait"})


@pytest.fixture
def args(monkeypatch):
    """Snakemake's settings of a command line run in the workflow's folder."""
    monkeypatch.chdir(REPO)
    return lambda *argv: parse_args(list(argv))[1]


def test_a_bare_run_decides_what_to_rebuild_as_the_profiles_do(args):
    bare, local, slurm = args(), args("--profile", "profiles/local"), args("--profile", "profiles/slurm")
    for run in (bare, local, slurm):
        assert {t.name for t in run.rerun_triggers} == {"PARAMS", "INPUT", "SOFTWARE_ENV"}
        assert run.max_checksum_file_size == 100_000_000 and run.rerun_incomplete
    assert bare.cores is None and bare.jobs is None  # the Snakefile gives it profiles/local's (below)
    assert local.cores >= 1 and local.resources["llm_slots"].value == 2
    assert slurm.resources["llm_slots"].value == 8


def test_a_bare_local_run_gets_the_local_profiles_cores_and_llm_slots_and_a_slurm_run_keeps_its_own(args):
    profile = REPO / "profiles/local/config.yaml"
    bare = args("demo")
    cores, added = local_defaults(profile, bare.cores, bare.jobs, {})
    assert cores >= 1 and added == {"llm_slots": 2}
    slurm = args("--profile", "profiles/slurm")
    assert slurm.cores is None and slurm.jobs == 100 and slurm.keep_going and slurm.latency_wait == 60
    # no cores: Snakemake caps no cluster job's threads at this machine's (index_dense asks 16)
    assert local_defaults(profile, slurm.cores, slurm.jobs, {"llm_slots": 8}) == (None, {})


def test_the_cluster_profile_sizes_every_sources_input_check():
    """An input check parses a whole collection: the cluster profile gives each source's rule memory, a runtime and
    the prep group, so a new source's check is not left to the cluster's defaults."""
    slurm = PROFILES["slurm"]
    for source in SOURCES.values():
        assert slurm["set-threads"][source.rule] == 1, source.rule
        assert {"mem_mb", "runtime"} <= set(slurm["set-resources"][source.rule]), source.rule
        assert slurm["groups"][source.rule] == "prep", source.rule
