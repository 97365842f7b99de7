"""The LLM stages through Snakemake against a fault-injecting OpenAI-compatible server of the tests' own
(tests/model_server.py, real HTTP on 127.0.0.1): failures are counted by stage and kind and published
with the release, a build over its failure limits publishes nothing, a plain rerun retries exactly the
failed calls, and an agent shard keeps its LLM calls flowing while it searches.

The indexes and the first stages are built once for the module; each test changes only the `llm:`
section (the model name keeps each test's journal and outputs apart).
"""

import json
import subprocess

import pyarrow.parquet as pq
import pytest
import yaml

from model_server import ModelServer
from workflow_run import Workflow

pytestmark = pytest.mark.workflow

PACKAGE = "results/doubting-ms-marco"
PUBLISHED = "work/doubting/demo/published.json"  # the package rule's record: the target that publishes PACKAGE
LEDGER = "work/doubting-release-ledger.json"


@pytest.fixture
def wf(served_wf) -> Workflow:
    return served_wf  # tests/workflow/conftest.py


@pytest.fixture
def server():
    s = ModelServer()
    yield s
    s.close()


def build(wf, server, name, *, llm=None, annotation=None, extra=(), check=True, version=None, accept=False):
    """Build the Doubting release with the LLM stages on `server`, under model name `name`. Calls time out
    after 2 s: below the server's injected stall (ModelServer.slow_s), far above its answers on a loaded
    machine running two LLM jobs side by side."""
    overlay = {"accept_llm_failures": accept,
               "llm": {"backend": "openai", "model": name, "base_urls": [server.url], "max_retries": 1,
                       "backoff_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 2, "journal_dir": f"cache/{name}",
                       "extra_body": {}, **(llm or {})},
               "annotation": annotation or {}, "builds": {"demo": {"version": version or f"v-{name}"}}}
    path = wf.root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(overlay))
    return wf.snakemake("--profile", "profiles/local", "--cores", "2", PUBLISHED, *wf.args, path.name, *extra,
                        check=check, timeout=1800)


def grade_rows(wf):
    tables = [pq.read_table(p).to_pylist() for p in sorted((wf.root / "work/doubting/demo/grades").glob("*/*.parquet"))]
    return [row for table in tables for row in table]


def test_every_failure_is_counted_by_stage_and_kind_and_the_release_holds_exactly_the_parsed_grades(wf, server):
    # each fault at 10% of attempts: with one retry, about a third of the calls fail for good; an
    # unparseable reply is not asked again (grade_retries 0)
    server.faults = {fault: 0.1 for fault in ("500", "429", "timeout", "malformed", "drop", "garbage")}
    build(wf, server, "mixed", llm={"grade_retries": 0}, accept=True)
    manifest = json.loads((wf.root / PACKAGE / "MANIFEST.json").read_text())
    failures = manifest["failures"]["stages"]

    rows = grade_rows(wf)
    failed = [r for r in rows if r["grade"] is None]
    assert failed and all(r["failure_kind"] and r["failure"] for r in failed)
    assert failures["grade"]["failed"] == len(failed) and failures["grade"]["total"] == len(rows)
    kinds = {r["failure_kind"] for r in failed}
    assert kinds <= {"http_500", "http_429", "timeout", "malformed_response", "connection", "unparseable"}
    assert sum(failures["grade"]["by_kind"].values()) == len(failed)

    graded = {(r["query_id"], r["passage_id"], r["origin"], r["grade"]) for r in rows if r["grade"] is not None}
    judged = set()
    for split in ("train", "dev"):
        for r in pq.read_table(wf.root / PACKAGE / f"judgments/{split}.parquet").to_pylist():
            judged.add((r["query_id"], r["passage_id"], r["origin"], r["grade"]))
    assert judged == graded

    traces = [json.loads(line) for p in sorted((wf.root / "work/doubting/demo/traces").glob("*/*.jsonl"))
              for line in p.read_text().splitlines()]
    assert failures["agent_search"]["failed"] == sum(t["end"] in ("llm_failure", "protocol_errors") for t in traces)
    assert failures["agent_search"]["total"] == len(traces)
    for stage, f in failures.items():  # per split, summing to the stage
        assert sum(s["failed"] for s in f["splits"].values()) == f["failed"], stage
    # the constraint path of every label
    assert sum(sum(s["grade_paths"].values()) for s in failures["grade"]["splits"].values()) == len(graded)
    wood = [r for p in sorted((wf.root / "work/doubting/demo/wood").glob("*/*.parquet"))
            for r in pq.read_table(p).to_pylist()]
    assert failures["wood"]["failed"] == sum(r["failure_kind"] is not None for r in wood)
    assert manifest["failures"]["accepted_over_limit"] is True
    assert "published over the configured failure limits" in (wf.root / PACKAGE / "README.md").read_text()
    # the published folder holds exactly what SHA256SUMS lists (no file of Snakemake's own)
    subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=wf.root / PACKAGE, check=True)
    listed = {line.split("  ", 1)[1] for line in (wf.root / PACKAGE / "SHA256SUMS").read_text().splitlines()}
    held = {p.relative_to(wf.root / PACKAGE).as_posix() for p in (wf.root / PACKAGE).rglob("*") if not p.is_dir()}
    assert held == listed | {"SHA256SUMS"}


def test_a_build_whose_calls_all_fail_publishes_and_freezes_nothing(wf, server):
    server.faults = {"500": 1.0}
    proc = build(wf, server, "down", check=False)
    assert proc.returncode != 0
    # the gate's stop once, as its message, not inside a traceback (irdata/logs.py)
    assert (proc.stdout + proc.stderr).count("release gate: too many LLM failures") == 1
    assert "Traceback" not in proc.stdout + proc.stderr and "CalledProcessError" not in proc.stdout + proc.stderr
    assert "agent_search" in proc.stdout + proc.stderr
    assert not (wf.root / PACKAGE).exists() or json.loads(
        (wf.root / PACKAGE / "MANIFEST.json").read_text())["version"] != "v-down"
    ledger = wf.root / LEDGER
    assert not ledger.exists() or "v-down" not in json.loads(ledger.read_text())["releases"]


def test_a_plain_rerun_retries_exactly_the_failed_calls(wf, server):
    server.faults, server.fault_kinds = {"500": 0.3}, ("grade",)
    first = build(wf, server, "flaky", llm={"max_retries": 0}, check=False)
    assert first.returncode != 0 and "release gate" in first.stdout + first.stderr
    failed_bodies = server.faulted("grade")
    assert failed_bodies
    seen = len(server.log)

    server.faults = {}
    build(wf, server, "flaky", llm={"max_retries": 0})
    again = server.log[seen:]
    assert not [r for r in again if r.kind == "agent"]  # no agent job ran again
    assert {r.key for r in again if r.kind == "grade"} == failed_bodies
    assert not [r for r in grade_rows(wf) if r["grade"] is None]
    # and then nothing is left to do
    assert wf.planned_rules(PUBLISHED, *wf.args, "flaky.yaml") == []


def test_an_agent_shard_of_over_100_queries_keeps_its_calls_flowing(wf, server):
    overlay = wf.root / "sample-100.yaml"
    overlay.write_text(yaml.safe_dump({"queries": "all", "doubting": {"shards": {"train": 1, "dev": 1}}}))
    build(wf, server, "hundred", llm={"timeout_s": 2, "max_retries": 0}, extra=(overlay.name,))
    stats = json.loads((wf.root / "work/doubting/demo/stats/agent_search/train/0000.json").read_text())
    assert stats["queries"] >= 100  # every train query of the demo, in one shard
    assert stats["failures"]["failed"] == 0 and stats["llm"]["retries"] == 0, stats
    assert stats["llm"]["calls"] >= 100


def build_44b(wf, server, name, *, check=True):
    """Build the 44b release with its LLM arm (every test query) and the random arm on `server`, under model
    name `name`, into results/44b-<name>. One attempt after the first, no breaker: every call reaches the
    server, so each of its failures is the server's answer, never an outage."""
    overlay = {"llm": {"backend": "openai", "model": name, "base_urls": [server.url], "max_retries": 1,
                       "backoff_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 2, "breaker_failures": 10_000,
                       "journal_dir": f"cache/{name}", "extra_body": {}},
               "eval44b": {"release": f"results/44b-{name}",
                           "scoring": {"arms": ["random"], "llm": {"enabled": True, "max_queries": None}}}}
    path = wf.root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(overlay))
    return wf.snakemake("--profile", "profiles/local", "--cores", "2", "eval44b", *wf.args, path.name,
                        check=check, timeout=1800)


def test_the_44b_llm_arm_against_a_failing_server_publishes_no_number_and_a_rerun_retries_its_calls(wf, server):
    server.faults = {"503": 1.0}
    first = build_44b(wf, server, "arm-down", check=False)
    said = first.stdout + first.stderr
    assert first.returncode != 0 and "release gate: too many LLM failures, nothing is published" in said
    assert "grade (44b arm llm):" in said and "annotation.failure_limits.grade" in said
    assert "commonest: http_503" in said and "accept_llm_failures=true" in said
    release = wf.root / "results/44b-arm-down"
    assert not release.exists()
    # every grade failed: the calls that reached the server (or the constraint probe they waited on) got 503
    queries = len((wf.root / "work/eval44b/mined/test.jsonl").read_text().splitlines())
    arm = json.loads((wf.root / "work/eval44b/arms/llm.json").read_text())
    assert arm["failures"]["by_kind"] == {"http_503": 9 * queries} == {"http_503": arm["failures"]["total"]}
    assert arm["queries"] == 0 and arm["queries_unranked"] == queries and set(arm["metrics"].values()) == {None}
    assert all(r.fault == "503" for r in server.log)
    log = (wf.root / "logs/eval44b/score_arms.llm.log").read_text()
    assert "'P@1': None" in log and "'P@1': 0" not in log

    seen = len(server.log)
    server.faults = {}
    build_44b(wf, server, "arm-down")
    graded = [r.key for r in server.log[seen:] if r.kind == "grade"]
    assert len(graded) == len(set(graded)) == 9 * queries  # each failed call asked once more
    results = {r["arm"]: r for r in map(json.loads, (release / "results.jsonl").read_text().splitlines())}
    llm = results["llm"]
    assert llm["failures"]["failed"] == 0 and llm["failures"]["total"] == 9 * queries
    assert llm["queries"] == queries and llm["P@1"] is not None and llm["metrics_withheld"] is None
    subprocess.run(["sha256sum", "-c", "--strict", "--quiet", "SHA256SUMS"], cwd=release, check=True)
    assert wf.planned_rules("eval44b", *wf.args, "arm-down.yaml") == []
