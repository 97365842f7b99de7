"""Publishing a release (irdata.publish, both releases): all or nothing under SIGKILL at every step, a staged
file that differs from SHA256SUMS or is not listed there is refused naming it, and a failed clean-up of the
old folder leaves the new one published. Under its version: an older version is kept beside the folder, a user's
files in it and an earlier version coming back over a later one are refused before anything moves."""

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
from irdata.errors import InputError
from irdata.ledger import ReleaseFrozenError
from irdata.provenance import sha256sums_text
from irdata.publish import SHA256SUMS, planned_swap, publish_release, publish_version, read_sha256sums


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


def versioned(folder: Path, version: str, files: dict[str, bytes], manifest="MANIFEST.json") -> bytes:
    """A staged release of `version`: `files`, a manifest that records the version, and their SHA256SUMS."""
    return stage(folder, {**files, manifest: json.dumps({"version": version, "config": {"k": version}}).encode()})


def publish(staged: Path, dest: Path, ledger: Path, manifest="MANIFEST.json") -> dict:
    return publish_version(staged, dest, ledger, "stage", manifest, "builds.x.version")


def test_a_kill_while_a_new_version_is_published_keeps_the_old_one_aside(tmp_path):
    """v1 published, v2 staged; after each kill at each step the folder holds v1 or v2 whole and `rel@v1` is absent
    or v1 whole; the rerun leaves v2, rel@v1 and the ledger."""
    results = tmp_path / "results"
    dest, ledger = results / "rel", results / "ledger.json"
    releases = {version: versioned(tmp_path / version, version, files) for version, files in (("v1", OLD), ("v2", NEW))}
    found, kill_at = Counter(), 1
    while True:
        shutil.rmtree(results, ignore_errors=True)
        publish(tmp_path / "v1", dest, ledger)
        killed, steps = publish_in_child(lambda: publish(tmp_path / "v2", dest, ledger), kill_at)
        if not killed:
            break
        assert state(results / "rel@v1", releases) in ("missing", "v1"), kill_at
        found[state(dest, releases)] += 1
        publish(tmp_path / "v2", dest, ledger)
        assert state(dest, releases) == "v2" and state(results / "rel@v1", releases) == "v1", kill_at
        assert sorted(os.listdir(results)) == ["ledger.json", "rel", "rel@v1"], kill_at
        assert set(json.loads(ledger.read_text())["releases"]) == {"v1", "v2"}
        kill_at += 1
    print(f"\npublish_version: {steps} kill points, states {dict(found)}")
    assert set(found) <= {"v1", "v2"} and found["v1"] and found["v2"], found


@pytest.mark.parametrize("manifest", ["MANIFEST.json", "manifest.json"])  # the Doubting release's, the 44b Eval's
def test_a_new_version_keeps_the_old_one_beside_the_folder_and_says_so(tmp_path, manifest):
    results = tmp_path / "results"
    dest, ledger = results / "rel", results / "ledger.json"
    v1 = versioned(tmp_path / "v1", "v1", OLD, manifest)
    v2 = versioned(tmp_path / "v2", "v2", NEW, manifest)
    first = publish(tmp_path / "v1", dest, ledger, manifest)
    assert (first["before"], first["set_aside"]) == (None, None)
    again = publish(tmp_path / "v1", dest, ledger, manifest)  # the same content again: nothing set aside
    assert (again["before"], again["set_aside"]) == ("v1", None) and not (results / "rel@v1").exists()
    second = publish(tmp_path / "v2", dest, ledger, manifest)
    assert second == {"version": "v2", "sha256sums_sha256": second["sha256sums_sha256"], "package": str(dest),
                      "before": "v1", "set_aside": str(results / "rel@v1")}
    assert state(dest, {"v2": v2}) == "v2" and state(results / "rel@v1", {"v1": v1}) == "v1"
    recorded = json.loads(ledger.read_text())["releases"]
    assert recorded["v2"]["config"] == {"k": "v2"} and recorded["v2"]["package"] == str(dest)
    # a release published before versions (its manifest records none) is kept as rel@unversioned
    stage(tmp_path / "old", OLD)
    shutil.rmtree(results)
    publish_release(tmp_path / "old", dest, "stage")
    assert publish(tmp_path / "v2", dest, ledger, manifest)["before"] == "unversioned"
    assert sorted(os.listdir(results)) == ["ledger.json", "rel", "rel@unversioned"]


def test_a_users_files_in_the_published_folder_are_refused_naming_them_before_anything_moves(tmp_path):
    results = tmp_path / "results"
    dest, ledger = results / "rel", results / "ledger.json"
    v1 = versioned(tmp_path / "v1", "v1", OLD)
    versioned(tmp_path / "v2", "v2", NEW)
    publish(tmp_path / "v1", dest, ledger)
    (dest / "my-notes.txt").write_text("mine")
    (dest / "data/extra.jsonl").write_text("{}\n")
    assert planned_swap(dest, "v2", {"v1": {}}, "MANIFEST.json").unlisted == ("data/extra.jsonl", "my-notes.txt")
    for version in ("v1", "v2"):  # the same version again would drop them, a new one move them aside
        with pytest.raises(InputError, match=r"rel: .*rel holds files its SHA256SUMS does not list: data/extra\.jsonl,"
                           r" my-notes\.txt; .* move them out of .*rel, then run again"):
            publish(tmp_path / version, dest, ledger)
    assert (dest / "my-notes.txt").read_text() == "mine" and not (results / "rel@v1").exists()
    assert set(json.loads(ledger.read_text())["releases"]) == {"v1"}
    (dest / "my-notes.txt").unlink()
    (dest / "data/extra.jsonl").unlink()
    assert state(dest, {"v1": v1}) == "v1"
    publish(tmp_path / "v2", dest, ledger)
    # a folder that is no release at all (no SHA256SUMS) is not published over either
    shutil.rmtree(results)
    (results / "rel").mkdir(parents=True)
    (results / "rel/thesis.tex").write_text("mine")
    with pytest.raises(InputError, match=r"does not list: thesis\.tex"):
        publish(tmp_path / "v1", dest, ledger)


def test_an_earlier_version_is_not_published_back_over_a_later_one(tmp_path):
    """After `--config` set v2, a plain run on the config's v1: refused, naming both and the two ways on."""
    results = tmp_path / "results"
    dest, ledger = results / "rel", results / "ledger.json"
    v1 = versioned(tmp_path / "v1", "v1", OLD)
    v2 = versioned(tmp_path / "v2", "v2", NEW)
    publish(tmp_path / "v1", dest, ledger)
    publish(tmp_path / "v2", dest, ledger)
    with pytest.raises(InputError, match=r"rel: holds release v2; publishing v1, which the release ledger .* records "
                       r"as published before, would put it back in its place. To build v2, run with the config it "
                       r"was built with; to publish v1 there again, move .*rel away first"):
        publish(tmp_path / "v1", dest, ledger)
    assert state(dest, {"v2": v2}) == "v2"
    dest.rename(results / "rel-v2")  # moved away by hand: v1 is published there again, rel@v1 stays as it was
    assert publish(tmp_path / "v1", dest, ledger)["before"] is None
    assert state(dest, {"v1": v1}) == "v1" == state(results / "rel@v1", {"v1": v1})


def test_a_version_is_not_published_with_other_content_than_its_ledger_records(tmp_path):
    results = tmp_path / "results"
    dest, ledger = results / "rel", results / "ledger.json"
    versioned(tmp_path / "v1", "v1", OLD)
    publish(tmp_path / "v1", dest, ledger)
    versioned(tmp_path / "v1b", "v1", NEW)
    with pytest.raises(ReleaseFrozenError, match=r"ledger\.json: release v1 was already built with different content "
                       r".* set a new builds\.x\.version to build new content"):
        publish(tmp_path / "v1b", dest, ledger)


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


def test_a_staged_release_without_a_version_is_refused_naming_it(tmp_path):
    stage(tmp_path / "old", {**OLD, "manifest.json": b"{}"})
    with pytest.raises(InputError, match=r"old/manifest\.json: records no version: .*rerun stage"):
        publish(tmp_path / "old", tmp_path / "results/rel", tmp_path / "ledger.json", "manifest.json")
    assert not (tmp_path / "results").exists()
