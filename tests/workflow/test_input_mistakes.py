"""Input paths and id files a user gets wrong, in a fresh copy of the repository: each is refused in a few lines
naming the config key (or the file and line) and what to do, at planning where the path is known (a dry-run too),
never in a traceback from a job or a hang on a pipe; an acquisition batch's id file that matches no query of the
build stops its check before any annotation."""

import json
import os
import time

import pytest

pytestmark = pytest.mark.workflow

OWN = "tests/own_release.yaml"  # the keys that name a release, as a user's overlay of other inputs sets them


def test_a_folder_a_pipe_a_missing_model_and_a_journal_path_that_is_a_file_stop_the_planning(workflow):
    root = workflow.root
    (root / "data/queries.train.tsv").mkdir(parents=True)  # an unpacked archive's folder of the file's name
    os.mkfifo(root / "data/qrels.dev.tsv")
    (root / "journal").write_text("")
    (root / "bad.yaml").write_text(
        "builds:\n  demo:\n    train_queries: data/queries.train.tsv\n    dev_qrels: data/qrels.dev.tsv\n"
        "llm:\n  gguf: models/smollm2.gguf\n  journal_dir: journal\n")
    start = time.monotonic()
    proc = workflow.snakemake("doubting", "-n", "--profile", "profiles/local", "--configfile", "config.yaml", OWN,
                              "bad.yaml", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    print(f"\ndry-run refused after {time.monotonic() - start:.1f} s:\n{out[-1500:]}")
    assert proc.returncode != 0
    message = out[out.index("The config names input files"):].splitlines()
    assert [line.strip() for line in message[1:5]] == [
        "builds.demo.train_queries: data/queries.train.tsv: a folder, not a file; name the file itself",
        "builds.demo.dev_qrels: data/qrels.dev.tsv: a named pipe (FIFO), not a regular file: a job reads its inputs "
        "more than once and hashes them; write the data to a file and name that",
        "llm.gguf: models/smollm2.gguf: no such file or folder; name an existing file",
        "llm.journal_dir: journal: a file, not a folder; name the folder"]
    for word in ("Traceback", "IsADirectoryError", "MissingInputException", "Building DAG"):
        assert word not in out, out[-3000:]


def test_a_batch_id_file_of_spreadsheet_numbers_stops_its_check_naming_the_line(workflow):
    root = workflow.root
    first, second = (line.split("\t")[0] for line in
                     (root / "resources/demo/queries.train.tsv").read_text().splitlines()[:2])
    (root / "pilot.txt").write_text(f"{first}\n{second}.0\n")
    (root / "batches.yaml").write_text("builds:\n  demo:\n    acquisition_batches:\n      train:\n"
                                       "        batches: [{name: pilot, query_ids_file: pilot.txt}]\n")
    target = "work/doubting/demo/inputs/acquisition_batches.json"
    args = ("--profile", "profiles/local", "--cores", "1", "--configfile", "config.yaml", "tests/tiny_demo.yaml",
            "batches.yaml")
    proc = workflow.snakemake(target, *args, check=False, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert (f"pilot.txt, line 2, field 'doubting.acquisition_batches.train.batches[0].query_ids_file': id "
            f"'{second}.0' is no query of the build (neither a train nor a dev query); the query '{second}' written "
            "as a number") in out, out[-3000:]
    assert "Traceback" not in out
    # fixed, the check records the batch's queries, and assemble reads them from its record
    (root / "pilot.txt").write_text(f"{first}\n{second}\n")
    workflow.snakemake(target, *args, timeout=600)
    record = json.loads((root / target).read_text())
    assert record["train"]["batches"][0]["ids"] == [first, second] and record["dev"]["batches"] == []
    rules = workflow.planned_rules("doubting", "--configfile", "config.yaml", "tests/tiny_demo.yaml", "batches.yaml")
    assert "assemble" in rules and "check_acquisition_batches" not in rules
