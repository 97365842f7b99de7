"""irdata.doubting.wiring: the LLM rules, prompts, release gate inputs and assemble inputs rules/package.smk names."""

from irdata.doubting import wiring


def shard_paths(split, kind="ids", rule=None):
    return [f"{split}/{kind}/{rule or '-'}/0000"]


class Prompts:
    """A StageWiring's prompt_paths: one prompt shared by every rule and one of each rule and split."""

    def prompt_paths(self, name, wildcards, build):
        return ["prompts/shared.txt", f"prompts/{name}.{wildcards['split']}.{build}.txt"]


def test_the_per_shard_llm_rules_are_the_gated_ones_but_the_audit():
    assert wiring.llm_rules() == ["agent_search", "grade", "generate_answer", "wood"]


def test_the_prompts_are_each_rules_and_splits_once_sorted():
    assert wiring.prompt_paths(Prompts(), ["grade", "wood"], "b") == [
        "prompts/grade.dev.b.txt", "prompts/grade.train.b.txt", "prompts/shared.txt", "prompts/wood.train.b.txt"]


def test_the_gate_reads_every_llm_jobs_stats_and_the_audits_only_when_it_runs():
    rules = wiring.llm_rules()
    stats = wiring.llm_job_stats(shard_paths, rules)
    assert stats == {"agent_search__train": ["train/stats/agent_search/0000"],
                     "agent_search__dev": ["dev/stats/agent_search/0000"],
                     "grade__train": ["train/stats/grade/0000"], "grade__dev": ["dev/stats/grade/0000"],
                     "generate_answer__train": ["train/stats/generate_answer/0000"],
                     "wood__train": ["train/stats/wood/0000"]}
    with_audit = wiring.llm_job_stats(shard_paths, rules, "work/audit.json")
    assert with_audit == {**stats, "audit_labels__audit": ["work/audit.json"]}


def test_assemble_reads_each_splits_ids_and_llm_files():
    inputs = wiring.assemble_shard_inputs(shard_paths)
    assert list(inputs) == ["train_ids", "train_agent", "train_grades", "train_answers", "train_wood", "dev_ids",
                            "dev_agent", "dev_grades"]
    assert inputs["dev_grades"] == ["dev/grades/-/0000"]


def test_the_batch_files_are_trains_then_devs():
    batches = {"dev": {"batches": [{"query_ids_file": "d1"}]}, "train": {"batches": [{"query_ids_file": "t1"},
                                                                                       {"query_ids_file": "t2"}]}}
    assert wiring.batch_files(batches) == ["t1", "t2", "d1"]
    assert wiring.batch_files({"train": {}, "dev": {}}) == []
