"""`snakemake -d DIR`: the workflow's code, prompts, schemas and demo inputs are read from the repository,
every output goes to the working folder; and a bad input file is one line (file, line, field) in the
rule's log and on the terminal, its traceback only under Snakemake's --verbose."""

from __future__ import annotations

import subprocess

import pytest

pytestmark = pytest.mark.workflow

FIRST_STAGES = ["work/doubting/demo/shards/train/0000.txt", "work/doubting/demo/shards/dev/0000.txt",
                "work/index/demo/bm25/settings.json"]


def repo_files(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_first_stages_build_in_a_working_folder_elsewhere(workflow, tmp_path):
    before = repo_files(workflow.root)
    run = tmp_path / "scratch" / "run1"
    workflow.snakemake("-d", str(run), "--profile", "profiles/local", "--cores", "2", *FIRST_STAGES)
    for path in FIRST_STAGES + ["work/doubting/demo/inputs.json", "work/store/demo/passages.arrow",
                                "logs/validate_msmarco_inputs/demo.log", "logs/shard_queries/demo.log"]:
        assert (run / path).is_file(), path
    assert repo_files(workflow.root) == before, "the run wrote into the workflow folder"
    # the demo's inputs were read from the workflow folder: the input check names them there
    assert str(workflow.root / "resources/demo/collection.tsv") in (run / "work/doubting/demo/inputs.json").read_text()
    # the plan is complete: an LLM stage's prompt resolves too (it used to resolve against the working folder)
    out = workflow.snakemake("-d", str(run), "-n", "--until", "grade", "--profile", "profiles/local")
    assert "prompts/grade_query_only.txt" in out.stdout, out.stdout[-3000:]


def bad_input_run(workflow, run, *extra) -> tuple[subprocess.CompletedProcess, str]:
    run.mkdir(parents=True, exist_ok=True)
    (run / "bad.tsv").write_text("0\tfine passage\n1 a line without its tab\n")
    (run / "bad.yaml").write_text("builds:\n  demo:\n    collection: bad.tsv\n")  # relative to the working folder
    # other inputs than the demo's: the overlay names its own release (tests/own_release.yaml)
    own = workflow.root / "tests/own_release.yaml"
    proc = workflow.snakemake("-d", str(run), "--profile", "profiles/local", "--cores", "1", *extra,
                              "work/doubting/demo/inputs.json", "--configfile", str(own), str(run / "bad.yaml"),
                              check=False)
    return proc, (run / "logs/validate_msmarco_inputs/demo.log").read_text()


def test_a_bad_input_is_one_line_in_the_log_and_on_the_terminal(workflow, tmp_path):
    proc, log = bad_input_run(workflow, tmp_path / "run")
    assert proc.returncode != 0
    lines = log.splitlines()
    assert len(lines) == 1, log
    assert lines[0].split(" ERROR validate_msmarco_inputs: ")[1] == (
        "InputError: bad.tsv, line 2: expected 2 tab-separated fields (passage_id, text), found 1; "
        "1 such line(s) in the file")
    terminal = proc.stdout + proc.stderr
    assert lines[0] in terminal
    assert "Traceback" not in terminal, terminal[-4000:]

    proc, log = bad_input_run(workflow, tmp_path / "verbose", "--verbose")
    assert proc.returncode != 0
    assert "bad.tsv, line 2: expected 2 tab-separated fields" in log.splitlines()[0]
    assert "Traceback (most recent call last)" in log and "InputError" in log, log
