"""What the LLM rules of a Doubting build read (irdata/stage.py): agent search, grading, answers, WOOD, the
model identity and the label audit; each LLM job's journal name and retry state."""

from __future__ import annotations

from ..build_grading import audit_mode, grading_mode
from ..layout import audit_retry_state, llm_retry_state
from ..retrieval.stages import search_settings
from ..shard_files import OFFICIAL_ROWS, rule_splits
from ..stage import Stage, canonical
from .common import llm_params

# The settings' constants live here, not in the stages' modules: planning imports this module and none of those
# (tests/unit/test_planning_imports.py).
# the agent's task prompt by tool protocol: JSON examples for the text protocol
AGENT_TASK = {"text": "prompts/agent_task.txt", "native": "prompts/agent_task_native.txt"}
# how many of a query's best-graded passages an answer is generated from (irdata/annotate/answers.py)
ANSWER_PASSAGES = 3
# the keys of doubting.audit the grading reads (the runs are audit_ranking's)
AUDIT_KEYS = ("qrels", "queries", "grades_from", "grading", "per_grade", "seed", "missing_passages")


def llm_job_patterns(rule: str) -> dict[str, str]:
    """The `job` (journal name) and `retry_state` of a per-shard LLM rule's jobs, as patterns of its wildcards; a
    rule that runs on one split has no {split} wildcard."""
    splits = rule_splits(rule)
    split = "{split}" if len(splits) > 1 else splits[0]
    return {"job": f"{{build}}-{rule}-{split}-{{shard}}", "retry_state": llm_retry_state(rule, split)}

STAGES = (
    Stage(
        name="agent_search",
        **llm_job_patterns("agent_search"),
        settings=lambda config, split, **_: canonical({
            "llm": llm_params(config["llm"], "agent"), "budget": config["annotation"]["agent"][split],
            "search": search_settings(config["retrieval"])}),
        # the task ends with the reply format of the tool protocol: JSON examples for the text protocol
        prompts=lambda config, **_: {"system": "prompts/agent_system.txt", "task": AGENT_TASK[
            llm_params(config["llm"], "agent")["tool_protocol"]]},
    ),
    Stage(
        name="grade",
        **llm_job_patterns("grade"),
        settings=lambda config, split, **_: canonical({
            "llm": llm_params(config["llm"], "grade"), "mode": grading_mode(config, split).name,
            "sees_answers": grading_mode(config, split).sees_answers, "official_rows": OFFICIAL_ROWS[split]}),
        prompts=lambda config, split, **_: {"grade": grading_mode(config, split).prompt},
    ),
    Stage(
        name="generate_answer",
        **llm_job_patterns("generate_answer"),
        settings=lambda config, **_: canonical({
            "llm": llm_params(config["llm"], "answer"), "max_tokens": config["annotation"]["answer_max_tokens"],
            "passages": ANSWER_PASSAGES}),
        prompts=lambda config, **_: {"answer": "prompts/answer.txt"},
    ),
    Stage(
        name="wood",
        **llm_job_patterns("wood"),
        settings=lambda config, **_: canonical({"llm": llm_params(config["llm"], "wood")}),
        prompts=lambda config, **_: {"with_passage": "prompts/wood_with_passage.txt",
                                     "query_only": "prompts/wood_query_only.txt"},
    ),
    Stage(
        name="llm_identity",
        settings=lambda config, **_: canonical({"llm": {
            name: llm_params(config["llm"], name) for name in ["default", *config["llm"].get("stages", {})]}}),
    ),
    Stage(
        name="audit_labels",
        job="{build}-audit_labels",
        retry_state=audit_retry_state(),
        settings=lambda config, **_: canonical({
            "llm": llm_params(config["llm"], "grade"), **{k: config["doubting"]["audit"][k] for k in AUDIT_KEYS},
            "mode": audit_mode(config).name}),
        prompts=lambda config, **_: {"grade": audit_mode(config).prompt},
    ),
)
