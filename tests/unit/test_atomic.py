"""Atomic writes: a file or folder appears whole or not at all, with the permissions a plain open() gives;
its folder is fsynced after the rename."""

import errno
import os
import stat
import sys

import pytest

from irdata import atomic
from irdata.atomic import atomic_dir, exchange, fsync_dir, write_text_atomic


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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="renameat2 is Linux's")
@pytest.mark.parametrize("use_wrapper", [True, False], ids=["libc", "syscall"])
def test_two_folders_are_exchanged_in_one_step(tmp_path, use_wrapper):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"in_{name}").touch()
    assert exchange(tmp_path / "a", tmp_path / "b", use_wrapper)
    assert os.listdir(tmp_path / "a") == ["in_b"] and os.listdir(tmp_path / "b") == ["in_a"]
    with pytest.raises(FileNotFoundError):
        exchange(tmp_path / "a", tmp_path / "c", use_wrapper)


@pytest.mark.parametrize("refused", [False, True], ids=["exchange", "two renames"])
def test_a_folder_is_replaced_whole_and_nothing_is_left_beside_it(tmp_path, monkeypatch, refused):
    if refused:  # a filesystem without the exchange (NFS)
        monkeypatch.setattr(atomic, "exchange", lambda a, b: False)
    for text in ("old", "new"):
        with atomic_dir(tmp_path / "release") as tmp:
            (tmp / "sub").mkdir()
            write_text_atomic(tmp / "sub/a.txt", text)
    assert (tmp_path / "release/sub/a.txt").read_text() == "new" and os.listdir(tmp_path) == ["release"]
    assert stat.S_IMODE(os.stat(tmp_path / "release").st_mode) == 0o755


def test_leftovers_of_a_killed_writer_are_removed_by_the_next(tmp_path):
    for name in (".release.x1.tmp", ".release.x2.old", ".release.old"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f").touch()
    (tmp_path / ".release.x3.tmp").touch()
    (tmp_path / ".release-other.x4.tmp").mkdir()  # another folder's
    with atomic_dir(tmp_path / "release") as tmp:
        (tmp / "a").touch()
    assert sorted(os.listdir(tmp_path)) == [".release-other.x4.tmp", "release"]


def test_a_rename_is_followed_by_an_fsync_of_its_folder(tmp_path, monkeypatch):
    synced = []
    fsync = os.fsync

    def recording(fd):
        synced.append(os.fstat(fd).st_ino)
        fsync(fd)

    monkeypatch.setattr(os, "fsync", recording)
    write_text_atomic(tmp_path / "out.txt", "x")
    assert synced == [os.stat(tmp_path / "out.txt").st_ino, os.stat(tmp_path).st_ino]
    synced.clear()
    with atomic_dir(tmp_path / "release") as tmp:
        (tmp / "a").touch()
    assert synced[-1] == os.stat(tmp_path).st_ino and os.stat(tmp_path / "release").st_ino in synced


def test_a_folder_that_cannot_be_fsynced_is_skipped_and_other_errors_raise(tmp_path, monkeypatch):
    def failing(code):
        def fsync(fd):
            raise OSError(code, os.strerror(code))
        return fsync

    monkeypatch.setattr(os, "fsync", failing(errno.EINVAL))
    fsync_dir(tmp_path)
    monkeypatch.setattr(os, "fsync", failing(errno.EIO))
    with pytest.raises(OSError, match="Input/output error"):
        fsync_dir(tmp_path)
