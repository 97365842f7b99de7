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
