"""One target per release: `snakemake doubting` plans no 44b Eval job, `snakemake eval44b` no Doubting MS
MARCO job, `all` (the default) both, each with its report rule (dry-runs only)."""

import json

import pytest

from demo_config import demo_build
from irdata.doubting.stages import config_used
from irdata.stage import canonical

pytestmark = pytest.mark.workflow

DOUBTING_ONLY = {"validate_msmarco_inputs", "agent_search", "grade", "assemble", "package", "report_doubting"}
EVAL44B_ONLY = {"split_papers", "mine_negatives", "score_arms", "package_44b", "publish_44b", "report_eval44b"}


def test_each_release_has_its_own_target(workflow):
    doubting = set(workflow.planned_rules("doubting"))
    eval44b = set(workflow.planned_rules("eval44b"))
    everything = set(workflow.planned_rules())
    assert DOUBTING_ONLY <= doubting and not doubting & EVAL44B_ONLY
    assert EVAL44B_ONLY <= eval44b and not eval44b & DOUBTING_ONLY
    assert everything == doubting | eval44b


DOWNSTREAM = {"downstream_training_set", "downstream_train", "downstream_encode", "downstream_evaluate",
              "downstream_compare", "report_downstream"}


def test_the_downstream_comparison_is_part_of_doubting_switchable_and_takes_beir_sets(workflow):
    assert DOWNSTREAM <= set(workflow.planned_rules("doubting"))
    (workflow.root / "off.yaml").write_text("doubting:\n  downstream: {enabled: false}\n")
    assert not set(workflow.planned_rules("doubting", "--configfile", "config.yaml", "off.yaml")) & DOWNSTREAM
    beir = workflow.root / "beir" / "tiny"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text('{"_id": "d1", "title": "t", "text": "x"}\n')
    (beir / "queries.jsonl").write_text('{"_id": "1", "text": "q"}\n')
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n")
    (workflow.root / "beir.yaml").write_text("doubting:\n  downstream: {eval_sets: [{name: tiny, path: beir/tiny}]}\n")
    out = workflow.snakemake("downstream", "-n", "--configfile", "config.yaml", "beir.yaml", "--quiet", "rules").stdout
    counts = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
              if len(line.split()) == 2 and line.split()[1].isdigit()}
    # the base model and both arms, each over MS MARCO and the BEIR set, one encoding shard each
    assert counts["downstream_beir_inputs"] == 1 and counts["downstream_evaluate"] == 6
    assert counts["downstream_encode"] == 6


BEIR_EXAMPLE = ("--configfile", "config.yaml", "config/beir-example.yaml")


def test_two_builds_plan_as_one_dag_and_each_name_is_a_target(workflow):
    both = workflow.planned_rules("doubting", *BEIR_EXAMPLE)
    assert {"validate_msmarco_inputs", "validate_beir_inputs", "shard_queries_demo",
            "shard_queries_beir-example"} <= set(both)
    beir = set(workflow.planned_rules("beir-example", *BEIR_EXAMPLE))
    assert {"validate_beir_inputs", "shard_queries_beir-example", "agent_search", "package"} <= beir
    assert not {"validate_msmarco_inputs", "shard_queries_demo", "audit_labels"} & beir  # the demo's alone
    assert set(workflow.planned_rules("demo")) == set(workflow.planned_rules("demo", *BEIR_EXAMPLE))
    # one DAG: the jobs of both builds, the LLM stages' twice as many as one build's shards
    out = workflow.snakemake("doubting", "-n", *BEIR_EXAMPLE, "--quiet", "rules").stdout
    counts = {line.split()[0]: int(line.split()[1]) for line in out.splitlines()
              if len(line.split()) == 2 and line.split()[1].isdigit()}
    assert counts["package"] == 2 and counts["stage_release"] == 2 and counts["report_doubting"] == 2


def frozen_ledger(workflow) -> None:
    """The demo's version recorded with another config, as after a build with another setting."""
    recorded = canonical(config_used(demo_build()))
    recorded["queries"] = "all"
    ledger = workflow.root / "work/doubting-release-ledger.json"
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text(json.dumps({"releases": {"v0.1-demo": {"sha256sums_sha256": "ab" * 32,
                                                            "package": "results/doubting-ms-marco",
                                                            "config": recorded}}}))


@pytest.mark.parametrize("asking", [("-n",), ("--summary",), ("--list-changes", "input")])
def test_asking_is_never_refused_by_a_frozen_version(workflow, asking):
    frozen_ledger(workflow)
    proc = workflow.snakemake("demo", *asking)
    out = proc.stdout + proc.stderr
    notice = [line for line in out.splitlines() if "is frozen" in line]
    assert notice == ["build demo: version v0.1-demo is frozen and queries changed; a real run that builds it would "
                      "stop; set builds.demo.version (e.g. --config 'builds={demo: {version: v0.1-demo-2}}', or an "
                      "overlay line)"]
    # the --config the line prints is one Snakemake takes: the notice goes, the plan stays
    fixed = workflow.snakemake("demo", *asking, "--config", "builds={demo: {version: v0.1-demo-2}}")
    assert "is frozen" not in fixed.stdout + fixed.stderr


def test_a_real_run_under_a_frozen_version_stops_before_its_first_job(workflow):
    frozen_ledger(workflow)
    proc = workflow.snakemake("demo", "--cores", "1", check=False)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Finished jobid" not in out and "Traceback" not in out
    stop = out[out.index("Frozen release versions"):].splitlines()
    assert len(stop) <= 5, stop
    assert "build demo: version v0.1-demo (release ledger work/doubting-release-ledger.json)" in stop[1]
    assert "--config 'builds={demo: {version: v0.1-demo-2}}'" in stop[2]
    assert not (workflow.root / "work/doubting/demo").exists()
