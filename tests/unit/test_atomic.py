"""Atomic writes: the file appears whole or not at all, with the permissions a plain open() gives."""

import os
import stat

import pytest

from irdata.atomic import atomic_dir, write_text_atomic


def test_an_atomic_file_is_readable_like_a_plain_one(tmp_path):
    write_text_atomic(tmp_path / "out.txt", "x\n")
    with open(tmp_path / "plain.txt", "w") as fh:
        fh.write("x\n")
    mode = stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode)
    assert mode == stat.S_IMODE(os.stat(tmp_path / "plain.txt").st_mode) and mode & stat.S_IRGRP


def test_a_failed_write_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with atomic_dir(tmp_path / "release") as tmp:
            write_text_atomic(tmp / "a.txt", "half")
            raise RuntimeError("killed")
    assert list(tmp_path.iterdir()) == []
