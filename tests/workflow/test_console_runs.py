"""What a user reads on the console, from Snakemake run in a copy of the repository as a user runs it (a fresh login
shell with the environment active): a mistake in a few lines naming the key, file or line and the fix, never a
traceback; a job in a few lines, its script's details in its log. (The whole demo build's console:
tests/workflow/test_demo_build.py; the printed commands: test_printed_commands.py.)"""

from __future__ import annotations

import shutil

import pytest

from printed_commands import run_shell
from repo_copy import copy_repo

pytestmark = pytest.mark.workflow


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = copy_repo(tmp_path_factory.mktemp("console") / "wf")
    shutil.copytree(root / "resources/beir-example", root / "data/mine")
    return root


def console(root, command: str) -> tuple[int, str]:
    proc = run_shell(command, root, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def assert_few_lines(out: str, most: int = 8):
    for word in ("Traceback", "CreateRuleException", "InputFunctionException", "CalledProcessError"):
        assert word not in out, out
    assert len(out.strip().splitlines()) <= most, out


@pytest.mark.parametrize("name", ["grade", "package", "report_doubting", "all", "doubting", "shard_queries_demo"])
def test_a_build_named_like_a_rule_or_target_is_a_config_mistake(root, name):
    (root / "named.yaml").write_text(f"builds:\n  {name}:\n    version: v1\n    source: {{format: beir, folder: "
                                     "data/mine}\n")
    code, out = console(root, "snakemake -n --configfile config.yaml named.yaml")
    assert code != 0
    assert (f"  builds.{name}: '{name}' is the name of a rule or target of the workflow (`snakemake {name}` would "
            f"name both); choose another name (in named.yaml)") in out, out
    assert_few_lines(out)


def test_a_beir_build_grades_its_dev_split_query_only_and_answer_hinted_there_names_the_builds_key(root):
    (root / "beir.yaml").write_text("builds:\n  mine:\n    version: v1\n    source: {format: beir, folder: "
                                    "data/mine}\n")
    code, out = console(root, "snakemake -n mine --configfile config.yaml beir.yaml")
    assert code == 0 and "grade" in out, out
    (root / "hinted.yaml").write_text("builds:\n  mine:\n    annotation: {grading: {dev: answer_hinted}}\n")
    code, out = console(root, "snakemake -n mine --configfile config.yaml beir.yaml hinted.yaml")
    assert code != 0
    assert ("  builds.mine.annotation.grading.dev: mode 'answer_hinted' needs reference answers, which only the dev "
            "split of MS MARCO-format inputs has; leave it out (it defaults to query_only) (in hinted.yaml)") in out
    assert_few_lines(out)


def test_a_mistyped_target_lists_the_targets_and_builds(root):
    code, out = console(root, "snakemake -n dmeo")
    assert code != 0 and "No rule to produce dmeo" in out
    assert "The targets: all, doubting, downstream, eval44b" in out and "the builds (each a target): demo" in out
    assert "(README 'Several builds'). Did you mean `demo`?" in out, out
    assert_few_lines(out)


def test_a_yaml_mistake_in_config_yaml_names_its_line(root):
    original = (root / "config.yaml").read_text()
    try:
        (root / "config.yaml").write_text(original.replace("queries: sample", "queries: sample\n  oops: 1", 1))
        code, out = console(root, "snakemake -n")
        assert code != 0 and "config.yaml, line 4, column 7: not valid YAML:" in out, out
        assert_few_lines(out)
    finally:
        (root / "config.yaml").write_text(original)


def test_the_command_line_mistakes_snakemake_words_itself_are_as_the_readme_says(root):
    """A nested --config key and a YAML error in an overlay stop in Snakemake's command line, before the workflow:
    the README ('What a run prints') quotes their wording and the fix; --verbose names the overlay's line."""
    code, out = console(root, "snakemake -n --config builds.demo.version=v2")
    assert code != 0 and "Invalid config definition: Config entry must start with a valid identifier" in out
    code, out = console(root, "snakemake -n --config 'builds={demo: {version: v2}}'")
    assert code == 0, out
    (root / "broken.yaml").write_text("builds:\n  demo:\n    version: v2\n   title: x\n")
    code, out = console(root, "snakemake -n --configfile config.yaml broken.yaml")
    assert code != 0 and "Config file is not valid JSON or YAML" in out
    code, out = console(root, "snakemake -n --verbose --configfile config.yaml broken.yaml")
    assert 'in "broken.yaml", line 4, column 4' in out, out


def test_a_bad_input_is_its_line_once_and_a_job_is_a_few_lines(root):
    """A real run on one machine without a profile: each job is its rule, log, reason and wildcards; a script's
    details are in its log; a bad input is the one line that names it, not followed by Snakemake's copy of the
    script's exit or a `message: None`."""
    code, out = console(root, "snakemake work/doubting/demo/shards/dev/0000.txt")
    assert code == 0, out
    assert "localrule validate_msmarco_inputs:" in out and "    log: logs/validate_msmarco_inputs/demo.log" in out
    assert "3 of 3 steps (100%) done" in out
    for noise in ("    input:", "    output:", "    resources:", " INFO ", "Loading faiss"):
        assert noise not in out, (noise, out)
    assert "inputs valid:" in (root / "logs/validate_msmarco_inputs/demo.log").read_text()
    collection = root / "resources/demo/collection.tsv"
    original = collection.read_text()
    try:
        collection.write_text(original + "12\tx\n12\ty\n")
        code, out = console(root, "snakemake work/doubting/demo/inputs.json")
    finally:
        collection.write_text(original)
    assert code != 0
    line = "ERROR validate_msmarco_inputs: InputError: resources/demo/collection.tsv, line 1626, field 'passage_id': " \
           "duplicate id '12'; ids must be unique"
    assert out.count(line) == 1, out
    errors = out.split(line, 1)[1]
    assert "message: None" not in errors and "CalledProcessError" not in errors and "Traceback" not in errors
    assert "Error in rule validate_msmarco_inputs:" in errors and "log: logs/validate_msmarco_inputs/demo.log" in errors
    assert len(errors.strip().splitlines()) <= 12, errors
