"""Publishing a release (irdata.publish, both releases): all or nothing under SIGKILL at every step, a staged
file that differs from SHA256SUMS or is not listed there is refused naming it, and a failed clean-up of the
old folder leaves the new one published."""

import json
import os
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from irdata import atomic
from irdata.atomic import leftovers
from irdata.doubting.package import publish_package
from irdata.errors import InputError
from irdata.provenance import sha256sums_text
from irdata.publish import SHA256SUMS, publish_release, read_sha256sums


def publish_in_child(publish, kill_at: int = 0, exchange_refused: bool = False, started=None) -> tuple[int, int]:
    """Run `publish()` in a forked child that SIGKILLs itself just before the `kill_at`-th call of a step that
    changes the disk (every rename, fsync, removal, new folder, link and file copy), or never (0); where the
    exchange is refused, as on NFS, replace_dir falls back to two renames. `started(pid)`, if given, is called
    when the child is about to publish. Returns (the signal that ended it or 0, the steps it made)."""
    steps_r, steps_w = os.pipe()
    start_r, start_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the patches live and die with it
        code = 1
        try:
            steps = 0

            def killing(fn):
                def step(*args, **kwargs):
                    nonlocal steps
                    steps += 1
                    if steps == kill_at:
                        os.kill(os.getpid(), signal.SIGKILL)
                    return fn(*args, **kwargs)
                return step

            if exchange_refused:
                atomic.exchange = lambda a, b: False
            for name in ("rename", "replace", "fsync", "unlink", "rmdir", "mkdir", "link", "sendfile"):
                setattr(os, name, killing(getattr(os, name)))
            shutil.copyfile = killing(shutil.copyfile)
            os.write(start_w, b"s")
            publish()
            os.write(steps_w, str(steps).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(steps_w)
    os.close(start_w)
    assert os.read(start_r, 1) == b"s"
    if started is not None:
        started(pid)
    _, status = os.waitpid(pid, 0)
    steps = os.read(steps_r, 64)
    os.close(steps_r)
    os.close(start_r)
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status), 0
    assert os.WEXITSTATUS(status) == 0, status
    return 0, int(steps)


def stage(folder: Path, files: dict[str, bytes]) -> bytes:
    """A staged release: `files` and their SHA256SUMS; returns its bytes."""
    shutil.rmtree(folder, ignore_errors=True)
    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    (folder / SHA256SUMS).write_text(sha256sums_text(folder, files), encoding="utf-8")
    return (folder / SHA256SUMS).read_bytes()


def state(folder: Path, releases: dict[str, bytes]) -> str:
    """Which release `folder` holds, whole: it passes `sha256sum -c --strict` and holds exactly the files its
    SHA256SUMS lists; "missing" when there is no folder, "other" for anything else."""
    if not folder.exists():
        return "missing"
    sums = folder / SHA256SUMS
    if not sums.is_file():
        return "other"
    if shutil.which("sha256sum"):
        check = subprocess.run(["sha256sum", "-c", "--strict", "--quiet", SHA256SUMS], cwd=folder,
                               capture_output=True)
        if check.returncode:
            return "other"
    held = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    if held != set(read_sha256sums(sums)) | {SHA256SUMS}:
        return "other"
    return next((name for name, text in releases.items() if sums.read_bytes() == text), "other")


OLD = {"README.md": b"old card\n", "data/a.jsonl": b'{"a": 1}\n', "gone.txt": b"only in the old release\n"}
NEW = {"README.md": b"new card\n", "data/a.jsonl": b'{"a": 2}\n', "data/b.jsonl": b'{"b": 2}\n',
       "big.bin": bytes(range(256)) * 4096}


def test_publish_copies_exactly_the_listed_files(tmp_path):
    new = stage(tmp_path / "staged", NEW)
    record = publish_release(tmp_path / "staged", tmp_path / "results/rel", "stage")
    assert state(tmp_path / "results/rel", {"new": new}) == "new"
    assert record["files"] == len(NEW) + 1 and record["release"] == str(tmp_path / "results/rel")
    assert os.listdir(tmp_path / "results") == ["rel"]


@pytest.mark.parametrize("refused", [False, True], ids=["exchange", "two renames"])
def test_a_kill_at_any_step_leaves_a_whole_release_and_the_rerun_the_new_one(tmp_path, refused):
    """SIGKILL before each step of a publish in turn, until one runs through; after each kill the folder
    holds the whole old or the whole new release (or, where the filesystem refuses the exchange, may be
    missing); the rerun publishes the new one and leaves nothing else."""
    results = tmp_path / "results"
    dest = results / "rel"
    old, new = stage(tmp_path / "old", OLD), stage(tmp_path / "new", NEW)
    found, kill_at = Counter(), 1
    while True:
        publish_release(tmp_path / "old", dest, "stage")
        killed, steps = publish_in_child(lambda: publish_release(tmp_path / "new", dest, "stage"), kill_at, refused)
        if not killed:
            break
        assert killed == signal.SIGKILL
        found[state(dest, {"old": old, "new": new})] += 1
        publish_release(tmp_path / "new", dest, "stage")
        assert state(dest, {"new": new}) == "new" and os.listdir(results) == ["rel"], kill_at
        kill_at += 1
    print(f"\n{'two renames' if refused else 'exchange'}: {steps} kill points, states {dict(found)}")
    assert set(found) <= {"old", "new"} | ({"missing"} if refused else set()), found
    assert found["old"] and found["new"] and steps == kill_at - 1 > 20  # every step was a kill point


def test_a_kill_during_the_copy_of_a_large_file_leaves_a_whole_release(tmp_path):
    """Kills at even delays across a publish whose time goes into copying and hashing a 16 MB file."""
    results = tmp_path / "results"
    dest = results / "rel"
    old = stage(tmp_path / "old", OLD)
    new = stage(tmp_path / "new", {**NEW, "big.bin": os.urandom(16 << 20)})
    publish_release(tmp_path / "old", dest, "stage")
    start = time.perf_counter()
    publish_in_child(lambda: publish_release(tmp_path / "new", dest, "stage"))
    took = time.perf_counter() - start
    found, points = Counter(), 30
    for i in range(points):
        publish_release(tmp_path / "old", dest, "stage")

        def kill_later(pid):
            time.sleep(took * i / points)
            os.kill(pid, signal.SIGKILL)

        publish_in_child(lambda: publish_release(tmp_path / "new", dest, "stage"), started=kill_later)
        found[state(dest, {"old": old, "new": new})] += 1
        publish_release(tmp_path / "new", dest, "stage")
        assert state(dest, {"new": new}) == "new" and os.listdir(results) == ["rel"], i
    print(f"\n{points} kills at even delays over {took:.3f} s: states {dict(found)}")
    assert set(found) <= {"old", "new"} and found["old"], found


def test_a_kill_while_a_new_version_is_published_keeps_the_old_one_aside(tmp_path):
    """The Doubting release (publish_package): v1 published, v2 staged; after each kill at each step the
    folder holds v1 or v2 whole and `rel@v1` is absent or v1 whole; the rerun leaves v2, rel@v1 and the ledger."""
    results = tmp_path / "results"
    dest, ledger = results / "rel", results / "ledger.json"
    releases = {version: stage(tmp_path / version, {**files, "MANIFEST.json": json.dumps(
                    {"version": version, "config": {}}).encode()})
                for version, files in (("v1", OLD), ("v2", NEW))}
    found, kill_at = Counter(), 1
    while True:
        shutil.rmtree(results, ignore_errors=True)
        publish_package(tmp_path / "v1", dest, ledger)
        killed, steps = publish_in_child(lambda: publish_package(tmp_path / "v2", dest, ledger), kill_at)
        if not killed:
            break
        assert state(results / "rel@v1", releases) in ("missing", "v1"), kill_at
        found[state(dest, releases)] += 1
        publish_package(tmp_path / "v2", dest, ledger)
        assert state(dest, releases) == "v2" and state(results / "rel@v1", releases) == "v1", kill_at
        assert sorted(os.listdir(results)) == ["ledger.json", "rel", "rel@v1"], kill_at
        assert set(json.loads(ledger.read_text())["releases"]) == {"v1", "v2"}
        kill_at += 1
    print(f"\npublish_package: {steps} kill points, states {dict(found)}")
    assert set(found) <= {"v1", "v2"} and found["v1"] and found["v2"], found


@pytest.fixture
def published(tmp_path):
    """The old release published at results/rel, the new one staged."""
    stage(tmp_path / "old", OLD)
    publish_release(tmp_path / "old", tmp_path / "results/rel", "stage")
    return tmp_path / "results/rel", (tmp_path / "results/rel" / SHA256SUMS).read_bytes()


def test_a_flipped_byte_is_refused_naming_the_file_and_the_old_release_stays(tmp_path, published):
    dest, old = published
    stage(tmp_path / "new", NEW)
    data = bytearray((tmp_path / "new/data/b.jsonl").read_bytes())
    data[3] ^= 1
    (tmp_path / "new/data/b.jsonl").write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"new/data/b\.jsonl: sha256 .*SHA256SUMS line 4 lists .*rerun stage"):
        publish_release(tmp_path / "new", dest, "stage")
    assert state(dest, {"old": old}) == "old" and not leftovers(dest)


def test_a_stray_file_is_refused_naming_it(tmp_path, published):
    dest, old = published
    stage(tmp_path / "new", NEW)
    (tmp_path / "new/README.md~").write_text("an editor's backup")
    with pytest.raises(InputError, match=r"new/README\.md~: not listed in .*SHA256SUMS"):
        publish_release(tmp_path / "new", dest, "stage")
    assert state(dest, {"old": old}) == "old" and not leftovers(dest)


def test_a_missing_file_and_a_bad_line_are_refused(tmp_path, published):
    dest, old = published
    stage(tmp_path / "new", NEW)
    (tmp_path / "new/data/a.jsonl").unlink()
    with pytest.raises(InputError, match=r"new/data/a\.jsonl: missing, listed in .*SHA256SUMS line 3"):
        publish_release(tmp_path / "new", dest, "stage")
    stage(tmp_path / "new", NEW)
    sums = tmp_path / "new" / SHA256SUMS
    sums.write_text(sums.read_text().replace("  README.md", " README.md"))
    with pytest.raises(InputError, match=r"SHA256SUMS, line 1: not a `<sha256>  <path>` line"):
        publish_release(tmp_path / "new", dest, "stage")
    assert state(dest, {"old": old}) == "old"


def test_a_failed_removal_of_the_old_folder_leaves_the_new_one_published(tmp_path, published, monkeypatch,
                                                                         caplog):
    """NFS answers "Directory not empty" while a reader holds a file of the old release."""
    dest, _ = published
    new = stage(tmp_path / "new", NEW)
    rmtree = shutil.rmtree

    def refused(path, *args, **kwargs):
        if str(path).endswith(".old"):
            raise OSError(39, "Directory not empty", str(path))
        return rmtree(path, *args, **kwargs)

    monkeypatch.setattr(atomic.shutil, "rmtree", refused)
    publish_release(tmp_path / "new", dest, "stage")
    assert state(dest, {"new": new}) == "new"
    [old] = leftovers(dest)
    assert old.name.startswith(".rel.") and old.name.endswith(".old")
    assert f"could not remove its old folder {old}" in caplog.text
    monkeypatch.setattr(atomic.shutil, "rmtree", rmtree)
    publish_release(tmp_path / "new", dest, "stage")  # the next run removes the leftover
    assert state(dest, {"new": new}) == "new" and os.listdir(dest.parent) == ["rel"]
