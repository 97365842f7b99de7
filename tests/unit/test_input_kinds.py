"""Property-based tests (hypothesis) of the planning's path check (irdata/input_keys.py) and of the readers of the
files it checks: whatever input key of the config names a damaged path (a folder where a file belongs, a file
where a folder belongs, a named pipe, a socket, a link to nothing, a file on the way, a missing path) under
whatever name, the planning says so in exactly one line that names that key and that path, and nothing else; and a
reader given such a path refuses it naming the path, never with another exception and never hanging on a pipe."""

from __future__ import annotations

import os
import signal
import socket
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from demo_config import workflow_builds
from irdata.builds import deep_merge
from irdata.doubting.human_audit import read_sheets
from irdata.errors import InputError
from irdata.input_keys import missing_inputs
from irdata.llm.journal import Journal
from irdata.shards import read_id_list

REPO = Path(__file__).resolve().parents[2]
DEMO = yaml.safe_load((REPO / "config.yaml").read_text())
EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _file_key(section: str, key: str):
    return lambda path: {section: {key: path}} if section == "eval44b" else {"builds": {"demo": {key: path}}}


# (the key a line names, the overlay that points it at a path, whether the key names a folder)
KEYS = [
    *((f"builds.demo.{key}", _file_key("doubting", key), False)
      for key in ("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels", "dev_answers")),
    ("builds.demo.heldout_queries[0]", lambda p: {"builds": {"demo": {"heldout_queries": [p]}}}, False),
    ("builds.demo.audit.qrels", lambda p: {"builds": {"demo": {"audit": {"qrels": p}}}}, False),
    ("builds.demo.audit.human.sheets[0]", lambda p: {"builds": {"demo": {"audit": {"human": {"sheets": [p]}}}}},
     False),
    ("builds.demo.acquisition_batches.train.batches[0].query_ids_file",
     lambda p: {"builds": {"demo": {"acquisition_batches": {"train": {"batches": [{"name": "b",
                                                                                   "query_ids_file": p}]}}}}}, False),
    ("eval44b.papers", _file_key("eval44b", "papers"), False),
    ("eval44b.reviews", _file_key("eval44b", "reviews"), False),
    ("llm.gguf", lambda p: {"llm": {"gguf": p}}, False),
    ("llm.stages.wood.gguf", lambda p: {"llm": {"stages": {"wood": {"gguf": p}}}}, False),
    ("builds.demo.downstream.eval_sets[0].path",
     lambda p: {"builds": {"demo": {"downstream": {"enabled": True, "eval_sets": [{"name": "x", "path": p}]}}}}, True),
]


def make_folder(path: Path) -> None:
    path.mkdir()


def make_file(path: Path) -> None:
    path.write_text("a\tb\n")


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))


def make_dangling(path: Path) -> None:
    path.symlink_to(path.parent / "nowhere")


# damage: (how to make it, the phrase its line holds, whether it is damage for a file key, for a folder key)
DAMAGES = {
    "folder": (make_folder, "a folder, not a file", True, False),
    "file": (make_file, "a file, not a folder", False, True),
    "fifo": (make_fifo, "a named pipe (FIFO), not a regular file", True, True),
    "socket": (make_socket, "a socket, not a regular file", True, True),
    "dangling": (make_dangling, "a symbolic link to", True, True),
    "missing": (lambda path: None, "no such file or folder", True, True),
}

# names as users give them: spaces, accents, dots, other scripts (a socket's path must stay short)
names = st.text(st.characters(whitelist_categories=("Lu", "Ll", "Nd"), whitelist_characters=" ._-é水"),
                min_size=1, max_size=12).filter(lambda s: s.strip(" .") == s and s not in (".", ".."))


def lines_for(overlay: dict) -> list[str]:
    config = deep_merge(DEMO, overlay)
    return missing_inputs(workflow_builds(config), config, REPO)


@EXAMPLES
@given(key=st.sampled_from(KEYS), damage=st.sampled_from(sorted(DAMAGES)), name=names)
def test_a_damaged_path_at_any_key_is_one_line_naming_that_key(key, damage, name):
    named, overlay, folder_key = key
    make, phrase, for_file, for_folder = DAMAGES[damage]
    if not (for_folder if folder_key else for_file):
        return
    with tempfile.TemporaryDirectory(prefix="k") as tmp:
        path = Path(tmp) / name
        make(path)
        lines = lines_for(overlay(str(path)))
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"{named}: {path}: {phrase}"), lines
    assert "; " in lines[0].split(f"{path}: ", 1)[1]  # what it is; what to do


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang


# the readers of the files the planning checks, as jobs call them
READERS = {
    "id list": lambda path: read_id_list(path),
    "human audit sheet": lambda path: read_sheets([path], {}.get, {}.get),
    "LLM journal": lambda path: Journal(path),
}


@EXAMPLES
@given(reader=st.sampled_from(sorted(READERS)), damage=st.sampled_from(["folder", "fifo", "socket", "dangling"]),
       name=names)
def test_a_reader_refuses_a_damaged_path_by_name_and_never_hangs(reader, damage, name):
    make = DAMAGES[damage][0]
    with tempfile.TemporaryDirectory(prefix="r") as tmp:
        path = Path(tmp) / name
        make(path)
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(5)
        try:
            with pytest.raises(InputError) as error:
                READERS[reader](path)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
    assert error.value.path == str(path)
