"""Operator mistakes with the servers, through Snakemake, each with its expected outcome: how fast the
build stops, the message, what is published. The LLM stages run against the fault-injecting server
of the tests' own (tests/model_server.py) or a base URL where nothing listens.

| mistake                        | outcome                                                             |
| ------------------------------ | ------------------------------------------------------------------- |
| a dead base URL                | stops by itself in seconds, naming the URL; nothing published       |
| a wrong model name             | stops in seconds, naming the served models; nothing published       |
| one of two base URLs dead      | builds and publishes, every call on the live one, the dead one named |
| one dead, the other misaligned | the WOOD job fails its calls as `misaligned` in seconds (not as an   |
|                                | outage after llm.outage_limit_s); the gate names the fix; nothing    |
|                                | published                                                            |

The indexes and the first stages are built once for the module; each test changes only the `llm:`
section (the model name keeps each test's journal and outputs apart).
"""

import json
import time

import pytest
import yaml

from model_server import ModelServer, free_port
from workflow.test_llm_failures import PACKAGE, PUBLISHED
from workflow_run import Workflow

pytestmark = pytest.mark.workflow



@pytest.fixture
def wf(served_wf) -> Workflow:
    return served_wf  # tests/workflow/conftest.py


def build(wf, name, base_urls, *, check=True, llm=None):
    """Build the Doubting release with the LLM stages on `base_urls` under model name `name`, with
    production-like retry settings; (process, seconds)."""
    overlay = {"llm": {"backend": "openai", "model": name, "base_urls": base_urls, "max_retries": 2,
                       "timeout_s": 5, "journal_dir": f"cache/{name}", "extra_body": {}, **(llm or {})},
               "builds": {"demo": {"version": f"v-{name}"}}}
    path = wf.root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(overlay))
    t0 = time.monotonic()
    proc = wf.snakemake("--profile", "profiles/local", "--cores", "2", PUBLISHED, *wf.args, path.name, check=check,
                        timeout=1800)
    return proc, time.monotonic() - t0


def published_version(wf):
    manifest = wf.root / PACKAGE / "MANIFEST.json"
    return json.loads(manifest.read_text())["version"] if manifest.exists() else None


def test_a_dead_base_url_stops_the_build_in_seconds_naming_it(wf):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    proc, seconds = build(wf, "dead", [dead], check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "no LLM server can serve this job" in out and dead in out and "is the server up? is the port right?" in out
    assert seconds < 240, seconds  # before the check: hours behind the circuit breaker
    assert published_version(wf) != "v-dead"
    print(f"dead base URL: the build stopped by itself in {seconds:.1f} s")


def test_a_wrong_model_name_stops_the_build_naming_the_served_ones(wf):
    server = ModelServer(models=("Qwen/Qwen3-8B",))
    try:
        proc, seconds = build(wf, "wrongname", [server.url], check=False)
    finally:
        server.close()
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "model 'wrongname' is not served (served: 'Qwen/Qwen3-8B')" in out
    assert "set llm.model" in out and not server.log  # no call was made
    assert seconds < 240, seconds
    assert published_version(wf) != "v-wrongname"


def test_one_of_two_base_urls_dead_builds_and_publishes(wf):
    server = ModelServer(models=("split",))
    dead = f"http://127.0.0.1:{free_port()}/v1"
    try:
        # production cool-downs: the dead URL, found unreachable by the check, stays out
        _, seconds = build(wf, "split", [dead, server.url], llm={"breaker_cooldown_s": 30, "backoff_max_s": 30})
    finally:
        server.close()
    assert published_version(wf) == "v-split"
    manifest = json.loads((wf.root / PACKAGE / "MANIFEST.json").read_text())
    assert all(stage["failed"] == 0 for stage in manifest["failures"]["stages"].values()), manifest["failures"]
    logs = "\n".join(p.read_text(errors="replace") for p in (wf.root / "logs").rglob("*.log"))
    assert f"LLM server {dead} left out until it answers" in logs
    assert server.received("agent") and server.received("grade")
    print(f"one of two base URLs dead: built and published in {seconds:.1f} s")


def test_a_dead_url_and_a_misaligned_one_stop_the_wood_job_in_seconds_naming_the_fix(wf):
    """Issue 26, item 7: before, the WOOD job waited out llm.outage_limit_s (180 s) behind "every LLM server is
    out", then failed every call as `outage` ("rerun after the servers are back"), though no rerun could help."""
    server = ModelServer(models=("wrongecho",), misaligned_echo=True)
    dead = f"http://127.0.0.1:{free_port()}/v1"
    benchmarks = wf.root / "benchmarks" / "wood"
    for old in benchmarks.rglob("*.tsv"):  # another build's WOOD job must not be measured
        old.unlink()
    try:
        proc, seconds = build(wf, "wrongecho", [dead, server.url], check=False)  # the default outage limit, 180 s
    finally:
        server.close()
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "release gate: too many LLM failures" in out, out[-3000:]
    assert "commonest: misaligned" in out and "llm.loglikelihood_bos: always" in out
    assert published_version(wf) != "v-wrongecho"
    (bench,) = benchmarks.rglob("*.tsv")
    wood_s = float(bench.read_text().splitlines()[1].split("\t")[0])
    assert wood_s < 60, wood_s  # against the 180 s outage limit
    wood_log = "\n".join(p.read_text(errors="replace") for p in (wf.root / "logs" / "wood").rglob("*.log"))
    assert "every LLM server is out" not in wood_log and "outage" not in wood_log
    assert f"{dead} unreachable since the job started" in wood_log and "set llm.loglikelihood_bos" in wood_log
    assert server.received("agent") and server.received("grade")  # chat calls were served as usual
    print(f"a dead URL and a misaligned one: the WOOD job ended in {wood_s:.1f} s (outage limit 180 s), the build "
          f"stopped at the gate in {seconds:.1f} s")
