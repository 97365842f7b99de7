"""The release's examples/join_text.py: the same join from a plain, compressed (by content, whatever the name)
or streamed file; an id the config refers to given twice is refused naming the file, the id and both lines;
every path a user can give it that is no readable file ends in one line and a non-zero exit."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irdata.doubting.examples import join_text
from irdata.doubting.examples.evaluate import FormatError

SCRIPT = join_text.__file__
COMPRESS = {"none": lambda b: b, "gzip": lambda b: gzip.compress(b, mtime=0), "bzip2": bz2.compress,
            "xz": lzma.compress}


def package(folder, pairs):
    """A release folder holding judgments/dev.parquet of `pairs` (query_id, passage_id)."""
    (folder / "judgments").mkdir(parents=True)
    pq.write_table(pa.table({"query_id": [q for q, _ in pairs], "passage_id": [p for _, p in pairs],
                             "grade": pa.array([3] * len(pairs), pa.int8())}), folder / "judgments/dev.parquet")
    return folder


PAIRS = [("q1", "p1"), ("q1", "p2"), ("q2", "p2"), ("q2", "p9")]
COLLECTION = b"p1\tfirst passage\np2\tsecond, \xc3\xa9t\xc3\xa9\nunused\tnever\np3\tthird\n"
QUERIES = b"q1\twhat is one\nq2\twhat is two\n"
EXPECTED = {"query_text": ["what is one", "what is one", "what is two", "what is two"],
            "passage_text": ["first passage", "second, \xe9t\xe9", "second, \xe9t\xe9", None]}


def run_script(*args, **kwargs):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, text=True, timeout=120,
                          **kwargs)


def joined(out):
    table = pq.read_table(out)
    return {name: table.column(name).to_pylist() for name in ("query_text", "passage_text")}


def feed(fd, data):
    with os.fdopen(fd, "wb") as fh:
        try:
            fh.write(data)
        except BrokenPipeError:
            pass


@pytest.mark.parametrize("packing", list(COMPRESS))
@pytest.mark.parametrize("name", ["collection.tsv", "collection.tsv.gz", "collection"])
def test_a_compressed_file_is_read_by_its_content_whatever_its_name(tmp_path, packing, name):
    pkg = package(tmp_path / "pkg", PAIRS)
    (tmp_path / name).write_bytes(COMPRESS[packing](COLLECTION))
    (tmp_path / "q.tsv").write_bytes(COMPRESS[packing](QUERIES))
    out = tmp_path / "out.parquet"
    proc = run_script("--package", pkg, "--config", "judgments", "--split", "dev", "--collection", tmp_path / name,
                      "--queries", tmp_path / "q.tsv", "--out", out)
    assert proc.returncode == 0, proc.stderr
    assert joined(out) == EXPECTED


def test_streams_give_the_files_join(tmp_path):
    """stdin (-), /dev/stdin and a process substitution: each file read once, front to back."""
    pkg = package(tmp_path / "pkg", PAIRS)
    (tmp_path / "c.tsv.gz").write_bytes(gzip.compress(COLLECTION * 1 + b"".join(
        f"filler{i}\t{'x' * 50}\n".encode() for i in range(2000))))  # longer than any sniffing
    (tmp_path / "q.tsv").write_bytes(QUERIES)
    common = ["--package", pkg, "--config", "judgments", "--split", "dev"]
    for n, (collection, queries, stdin) in enumerate([
            ("-", tmp_path / "q.tsv", (tmp_path / "c.tsv.gz").read_bytes()),
            (tmp_path / "c.tsv.gz", "/dev/stdin", QUERIES)]):
        out = tmp_path / f"out{n}.parquet"
        proc = subprocess.run([sys.executable, SCRIPT, *map(str, common), "--collection", str(collection),
                               "--queries", str(queries), "--out", str(out)], input=stdin, capture_output=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert joined(out) == EXPECTED
    out = tmp_path / "sub.parquet"
    proc = subprocess.run(["bash", "-c", f"{sys.executable} {SCRIPT} {' '.join(map(str, common))} --collection "
                           f"<(zcat {tmp_path / 'c.tsv.gz'}) --queries <(cat {tmp_path / 'q.tsv'}) --out {out}"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert joined(out) == EXPECTED


@pytest.mark.parametrize("jsonl", [False, True])
def test_an_id_the_config_refers_to_given_twice_is_refused_naming_both_lines(tmp_path, jsonl):
    pkg = package(tmp_path / "pkg", PAIRS)
    rows = [("p1", "first"), ("unused", "a"), ("unused", "b"), ("p2", "second"), ("p1", "first again")]
    if jsonl:
        path = tmp_path / "corpus.jsonl"
        path.write_text("".join(json.dumps({"_id": i, "text": t}) + "\n" for i, t in rows))
    else:
        path = tmp_path / "collection.tsv"
        path.write_text("".join(f"{i}\t{t}\n" for i, t in rows))
    (tmp_path / "q.tsv").write_bytes(QUERIES)
    out = tmp_path / "out.parquet"
    proc = run_script("--package", pkg, "--config", "judgments", "--split", "dev", "--collection", path,
                      "--queries", tmp_path / "q.tsv", "--out", out)
    assert proc.returncode == 1 and not out.exists()
    assert proc.stderr == (f"{path}, line 5, field 'id': id 'p1' is on line 1 and on line 5 (different texts; 2 "
                           "lines in all): a join would have to pick one; remove the repeats\n")
    # the repeated id the config does not refer to is not kept, so not checked
    path.write_text(path.read_text().splitlines(keepends=True)[0] + "".join(
        path.read_text().splitlines(keepends=True)[1:4]))
    proc = run_script("--package", pkg, "--config", "judgments", "--split", "dev", "--collection", path,
                      "--queries", tmp_path / "q.tsv", "--out", out)
    assert proc.returncode == 0, proc.stderr
    # the queries file too
    (tmp_path / "q.tsv").write_bytes(QUERIES + b"q2\twhat is two\n")
    proc = run_script("--package", pkg, "--config", "judgments", "--split", "dev", "--collection", path,
                      "--queries", tmp_path / "q.tsv", "--out", out)
    assert proc.returncode == 1 and proc.stderr.startswith(f"{tmp_path / 'q.tsv'}, line 3, field 'id': id 'q2' is "
                                                           "on line 2 and on line 3 (the same text;")


def _tar_gz(folder):
    import tarfile

    (folder / "collection.tsv").write_bytes(COLLECTION)
    with tarfile.open(folder / "collectionandqueries.tar.gz", "w:gz") as tar:
        tar.add(folder / "collection.tsv", arcname="collection.tsv")
    return folder / "collectionandqueries.tar.gz"


def test_what_is_no_readable_file_is_one_line(tmp_path):
    pkg = package(tmp_path / "pkg", PAIRS)
    queries = tmp_path / "q.tsv"
    queries.write_bytes(QUERIES)
    bad_tab = tmp_path / "bad.tsv"
    bad_tab.write_bytes(b"p1\tfine\np2 no tab here\n")
    bad_json = tmp_path / "bad.jsonl"
    bad_json.write_text('{"_id": "p1", "text": "t"}\n{"_id": "p2", "text": "t"} {"_id": "p3"}\n')
    no_id = tmp_path / "noid.jsonl"
    no_id.write_text('{"_id": "p1", "text": "t"}\n\n{"text": "t"}\n')
    latin = tmp_path / "latin.tsv"
    latin.write_bytes(b"p1\tfine\np2\tcaf\xe9\n")
    common = ["--package", pkg, "--config", "judgments", "--split", "dev", "--queries", queries]
    cases = [
        (["--collection", tmp_path / "nope.tsv"], f"{tmp_path / 'nope.tsv'}: no such file"),
        (["--collection", tmp_path], f"{tmp_path}: a folder, not a file"),
        (["--collection", _tar_gz(tmp_path)], "gzip-compressed, and inside a tar archive: extract the file from it"),
        (["--collection", bad_tab], f"{bad_tab}, line 2: expected 2 fields (id TAB text), found 1"),
        (["--collection", bad_json], f"{bad_json}, line 2: not JSON (Extra data"),
        (["--collection", no_id], f"{no_id}, line 3, field '_id': missing (BEIR's _id is a string)"),
        (["--collection", latin], f"{latin}, line 2: not UTF-8 text"),
        (["--collection", "/dev/zero"], "/dev/zero, line 1: a NUL character"),
    ]
    for args, words in cases:
        out = tmp_path / "out.parquet"
        proc = run_script(*common, *args, "--out", out)
        assert proc.returncode == 1 and words in proc.stderr and proc.stderr.count("\n") == 1, (args, proc.stderr)
        assert "Traceback" not in proc.stderr and not out.exists()
    collection = tmp_path / "c.tsv"
    collection.write_bytes(COLLECTION)
    proc = run_script("--package", tmp_path, "--config", "judgments", "--split", "dev", "--queries", queries,
                      "--collection", collection, "--out", tmp_path / "out.parquet")
    assert proc.returncode == 1 and proc.stderr.startswith(f"{tmp_path / 'judgments/dev.parquet'}: no such file")
    proc = run_script(*common, "--collection", collection, "--out", tmp_path)
    assert proc.returncode == 1 and proc.stderr == f"{tmp_path}: a folder: name a file in it\n"
    out = tmp_path / "new" / "folder" / "joined.parquet"
    proc = run_script(*common, "--collection", collection, "--out", out)
    assert proc.returncode == 0 and joined(out) == EXPECTED
    assert sorted(p.name for p in out.parent.iterdir()) == ["joined.parquet"]


# the lines of a text as Python's text mode gives them (LF, CRLF, CR), whatever the block size
TEXTS = st.lists(st.sampled_from(["a", "\t", "\n", "\r", "\r\n", "é", " ", "中"]), max_size=60).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=TEXTS, block=st.integers(1, 70), bom=st.booleans(), packing=st.sampled_from(list(COMPRESS)),
       stream=st.booleans())
def test_line_blocks_number_every_line_whatever_the_blocks(text, block, bom, packing, stream):
    data = COMPRESS[packing]((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    expected = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if expected[-1] == "":
        expected.pop()
    if stream:
        read_fd, write_fd = os.pipe()
        writer = threading.Thread(target=feed, args=(write_fd, data))
        writer.start()
        try:
            blocks = list(join_text.line_blocks(f"/dev/fd/{read_fd}", block=block))
        finally:
            os.close(read_fd)
            writer.join()
    else:
        with tempfile.TemporaryDirectory() as name:
            (Path(name) / "f").write_bytes(data)
            blocks = list(join_text.line_blocks(str(Path(name) / "f"), block=block))
    numbered = [(first + i, line) for first, lines in blocks for i, line in enumerate(lines.to_pylist())]
    assert numbered == list(enumerate(expected, start=1))


def test_a_line_cut_by_a_block_end_is_named_by_its_number(tmp_path):
    path = tmp_path / "c.tsv"
    path.write_bytes(b"p1\tone\n" * 10 + b"p2\tcaf\xe9 au lait\n")
    for block in (1, 3, 7, 100):
        with pytest.raises(FormatError) as error:
            for _ in join_text.line_blocks(str(path), block=block):
                pass
        assert error.value.line == 11, block
