"""One target per release: `snakemake doubting` plans no 44b Eval job, `snakemake eval44b` no Doubting MS
MARCO job, `all` (the default) both, each with its report rule (dry-runs only)."""

import pytest

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
