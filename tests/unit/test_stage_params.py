"""One params call per rule: every rule with a script gets its params from `**stage_params(<its own name>)`,
whose code identity covers the script that rule names (rules/common.smk, irdata/stage_registry.py)."""

import re
from pathlib import Path

from irdata.code_identity import code_identity
from irdata.sources.registry import SOURCES
from irdata.stage_registry import STAGES, StageWiring

REPO = Path(__file__).resolve().parents[2]
# a rule, a `use rule`, a rule generated per build (`rule:` with `name: f"<rule>_{_build}"`, rules/queries.smk) or
# per input source (`name: source.rule`, its params `**stage_params(source.rule)`: one rule of each source's name)
RULE = re.compile(r'^\s*(?:rule (\w+):|use rule (\w+) as (\w+) with:|rule:\s*\n\s*name:\s*\n\s*f"(\w+)_\{\w+\}"|'
                  r'rule:\s*\n\s*name:\s*\n\s*(source)\.rule)', re.M)
PER_BUILD = "_{build}"
PER_SOURCE = "source.rule"
PARAMS_CALL = re.compile(r'\*\*stage_params\("(\w+)"')


def rule_blocks(text: str) -> dict[str, tuple[str | None, str]]:
    """{rule: (the rule it is a `use rule` of, or None; its text)} of a Snakemake file."""
    found = list(RULE.finditer(text))
    ends = [m.start() for m in found[1:]] + [len(text)]
    blocks = {}
    for m, end in zip(found, ends):
        body = text[m.end(): end]
        if m.group(5):
            blocks.update({source.rule: (None, body.replace(PER_SOURCE, f'"{source.rule}"'))
                           for source in SOURCES.values()})
        else:
            blocks[m.group(1) or m.group(3) or f"{m.group(4)}{PER_BUILD}"] = (m.group(2), body)
    return blocks


def params_mistakes(text: str) -> list[str]:
    """Rules with a script (their own or inherited) whose params are not `**stage_params(<their name>)`."""
    blocks = rule_blocks(text)
    mistakes = []
    for name, (parent, body) in blocks.items():
        if "script:" not in body and not (parent and "script:" in blocks.get(parent, (None, ""))[1]):
            continue
        called = PARAMS_CALL.findall(body)
        if called != [name.removesuffix(PER_BUILD)]:
            mistakes.append(f"rule {name}: params from {called or 'no stage_params call'}")
    return mistakes


def workflow_text() -> str:
    return "\n".join(p.read_text() for p in sorted((REPO / "rules").glob("*.smk")))


def test_every_rule_with_a_script_gets_its_params_from_its_own_name():
    assert params_mistakes(workflow_text()) == []


def test_a_rule_calling_another_rules_params_is_found():
    text = ('rule grade:\n    params:\n        **stage_params("grade"),\n    script:\n        "g.py"\n\n'
            'rule wood:\n    params:\n        **stage_params("grade"),\n    script:\n        "w.py"\n\n'
            'use rule grade as grade_again with:\n    params:\n        kind="x",\n')
    assert params_mistakes(text) == ["rule wood: params from ['grade']",
                                     "rule grade_again: params from no stage_params call"]


def test_every_stage_is_a_rule_of_the_workflow():
    rules = rule_blocks(workflow_text())
    assert sorted(set(STAGES) - set(rules)) == []


def test_the_code_identity_covers_the_script_the_rule_names():
    scripts = {"grade": "workflow_scripts/grade.py", "papers_store": "workflow_scripts/papers_store.py"}
    wiring = StageWiring({"annotation": {"grading": {"train": "query_only", "dev": "answer_hinted"}},
                          "llm": {"backend": "local", "model": "SmolLM2-135M-Instruct"}}, REPO, scripts.__getitem__)
    grade = wiring.params("grade")
    assert grade["code"]({"split": "train", "shard": "0000"}) == code_identity(
        scripts["grade"], REPO, prompts=["prompts/grade_query_only.txt"])
    assert grade["job"] == "{build}-grade-{split}-{shard}"
    assert grade["retry_state"] == "work/doubting/{build}/retry/grade/{split}/{shard}.json"
    assert grade["retry"]({"build": "demo", "split": "train", "shard": "0000"}) == 0
    # a rule without a Stage reads no settings: its code identity alone
    store = wiring.params("papers_store")
    assert set(store) == {"code"} and store["code"]({}) == code_identity(scripts["papers_store"], REPO)
