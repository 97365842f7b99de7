"""Property tests (hypothesis) of the readers of the release's example scripts and the audit's runs over the
damage kinds a user's files come with beyond a damaged text (tests/unit/test_input_properties.py): compressed
files (gzip, bzip2, xz), mislabelled ones (a name that says another compression, or none), streams (a pipe read
through /dev/fd, as a process substitution gives one), and damage to the text before compressing or to the
compressed bytes. A valid file reads back exactly whatever its compression, name or delivery; a damaged one is
read or refused by name (file, a line of it) and never another exception; and a stream gives the outcome of the
file: the same value, or the same refusal."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import tempfile
import threading
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irdata.doubting.audit_ranking import read_run_file
from irdata.doubting.examples import evaluate, join_text
from irdata.errors import InputError

EXAMPLES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
COMPRESS = {"none": lambda b: b, "gzip": lambda b: gzip.compress(b, mtime=0), "bzip2": bz2.compress,
            "xz": lzma.compress}
SUFFIXES = ["", ".gz", ".bz2", ".xz", ".txt"]  # any of them on any compression: the content decides

# ids: no whitespace, control character or lone surrogate (what TREC and TSV files cannot hold in an id)
ids = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs", "Zl", "Zp"),
                            blacklist_characters="\ufeff\x85\u180e\u200b"), min_size=1, max_size=5)
texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r\0\ufeff\x0b\x0c\x1c\x1d"
                              "\x1e\x85\u2028\u2029"), max_size=12)


@st.composite
def lines_file(draw, lines: list[str]) -> bytes:
    """`lines` with LF, CRLF or CR line ends, blank lines between, a last line end or none, a BOM or none."""
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    out = []
    for line in lines:
        out += [""] * draw(st.integers(0, 1)) + [line]
    text = eol.join(out) + (eol if draw(st.booleans()) else "")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


@st.composite
def trec_run(draw):
    rows = draw(st.lists(st.tuples(ids, ids, st.integers(1, 1000), st.floats(allow_nan=False), ids), min_size=1,
                         max_size=8))
    run: dict = {}
    for q, d, _, s, _ in rows:
        run.setdefault(q, {})[d] = s
    counts = {"lines": len(rows), "header_lines": 0,
              "duplicate_lines": len(rows) - sum(len(docs) for docs in run.values())}
    return draw(lines_file([f"{q} Q0 {d} {r} {s!r} {t} " for q, d, r, s, t in rows])), (run, counts)


def read_run(path):
    counts = {}
    return dict(read_run_file(path, counts)), counts


@st.composite
def qrels(draw):
    rows = draw(st.lists(st.tuples(ids, ids, st.integers(-3, 3)), min_size=1, max_size=8))
    expected: dict = {}
    for q, d, g in rows:
        expected.setdefault(q, {})[d] = g
    return draw(lines_file([f"{q}\t0 {d}  {g}" for q, d, g in rows])), expected


@st.composite
def id_text_tsv(draw):
    # a first id that starts with { makes a nameless file (a pipe) BEIR's JSON lines to join_text
    rows = draw(st.lists(st.tuples(ids.filter(lambda i: not i.startswith("{")), texts), min_size=1, max_size=6,
                         unique_by=lambda r: r[0]))
    return draw(lines_file([f"{i}\t{t}" for i, t in rows])), dict(rows)


@st.composite
def beir_jsonl(draw):
    rows = draw(st.lists(st.tuples(ids, texts, st.none() | texts), min_size=1, max_size=6,
                         unique_by=lambda r: r[0]))
    records = [{"_id": i, "text": t} | ({} if title is None else {"title": title}) for i, t, title in rows]
    lines = [json.dumps(r, ensure_ascii=draw(st.booleans())) for r in records]
    return draw(lines_file(lines)), {i: t for i, t, _ in rows}


def read_join_texts(path):
    """join_text's reader, every id kept: {id: text}."""
    table = join_text.read_texts(path)
    return dict(zip(table.column("id").to_pylist(), table.column("text").to_pylist()))


@dataclass
class Format:
    name: str
    valid: Callable
    read: Callable
    stem: str = "file"
    error: type = evaluate.FormatError
    named: bool = False  # whether a file's name can say its format (join_text: .jsonl, .tsv), which a pipe lacks


FORMATS = [
    Format("trec_run", trec_run, read_run, error=InputError),
    Format("evaluate_qrels", qrels, lambda p: dict(evaluate.read_qrels(p))),
    Format("join_tsv", id_text_tsv, read_join_texts, "collection.tsv", named=True),
    Format("join_jsonl", beir_jsonl, read_join_texts, "corpus.jsonl", named=True),
]


def _feed(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb") as fh:
        try:
            fh.write(data)
        except BrokenPipeError:  # the reader refused the file before its end
            pass


def outcome(fmt: Format, path: str):
    """("read", value) or ("refused", (problem, line, field)) of reading `path`; any other exception fails."""
    try:
        return "read", fmt.read(path)
    except fmt.error as error:
        assert error.path == path and error.problem, error
        return "refused", (error.problem, error.line, error.field)


def through_pipe(fmt: Format, data: bytes):
    read_fd, write_fd = os.pipe()
    writer = threading.Thread(target=_feed, args=(write_fd, data))
    writer.start()
    try:
        return outcome(fmt, f"/dev/fd/{read_fd}")
    finally:
        os.close(read_fd)
        writer.join(timeout=30)


def from_file(fmt: Format, data: bytes, suffix: str, stem: str | None = None):
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / ((stem or fmt.stem) + suffix)
        path.write_bytes(data)
        return outcome(fmt, str(path))


def _decompressed_prefix(data: bytes) -> bytes:
    """As much text as `data` gives when decompressed byte by byte until it breaks (a damaged file's readable
    part); the bytes themselves when they are no compressed stream."""
    for magic, make in ((b"\x1f\x8b", lambda: zlib.decompressobj(wbits=31)), (b"BZh", bz2.BZ2Decompressor),
                        (b"\xfd7zXZ\x00", lzma.LZMADecompressor)):
        if data.startswith(magic):
            break
    else:
        return data
    out, decompressor, rest, i = [], make(), data, 0
    while i < len(rest):
        try:
            out.append(decompressor.decompress(rest[i:i + 1]))
        except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError):
            break
        i += 1
        if decompressor.eof:  # a next member (gzip's multi-member files)
            rest, i = decompressor.unused_data + rest[i:], 0
            if not rest.startswith(magic):
                break
            decompressor = make()
    return b"".join(out)


def text_lines(data: bytes) -> int:
    """The most lines a reader can see in `data`: of its bytes, or of its readable decompressed text."""
    return max(_lines_of(data), _lines_of(_decompressed_prefix(data)))


def _lines_of(text: bytes) -> int:
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data(), packing=st.sampled_from(list(COMPRESS)), suffix=st.sampled_from(SUFFIXES))
def test_a_valid_file_reads_back_exactly_compressed_mislabelled_or_streamed(fmt, data, packing, suffix):
    content, expected = data.draw(fmt.valid())
    packed = COMPRESS[packing](content)
    assert from_file(fmt, packed, suffix) == ("read", expected)
    assert through_pipe(fmt, packed) == ("read", expected)


def damage(data: bytes, how: tuple) -> bytes:
    kind, at = how[0], how[1] % (len(data) + 1)
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        return data[:at] + how[2] + data[at:]
    if kind == "replace":
        return data[:at] + how[2] + data[at + 1:]
    lines = data.split(b"\n")
    i = at % len(lines)
    lines.insert(i, lines[i])  # double
    return b"\n".join(lines)


DAMAGE = st.one_of(
    st.tuples(st.just("cut"), st.integers(0, 1 << 16)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=3)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 16), st.sampled_from([b"\t", b"\n", b"\r", b"\xff", b"\x00",
                                                                           b"{", b" ", b"\x1f\x8b", b"PK\x03\x04"])),
    st.tuples(st.just("replace"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=1)),
    st.tuples(st.just("double"), st.integers(0, 1 << 16)),
)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data(), packing=st.sampled_from(list(COMPRESS)), suffix=st.sampled_from(SUFFIXES),
       before=st.booleans(), how=DAMAGE)
def test_a_damaged_compressed_file_is_read_or_refused_by_name_and_a_stream_gives_the_files_outcome(
        fmt, data, packing, suffix, before, how):
    """Damage to the text before it is compressed, or to the compressed bytes (a cut download, a flipped byte)."""
    content, _ = data.draw(fmt.valid())
    damaged = COMPRESS[packing](damage(content, how)) if before else damage(COMPRESS[packing](content), how)
    # a name that says the format decides what a damaged file is read as; without one, as for a pipe, the content
    kind, value = from_file(fmt, damaged, suffix, stem="file" if fmt.named else None)
    if kind == "refused":
        _, line, _ = value
        assert line is None or 1 <= line <= text_lines(damaged), (value, damaged)
    assert through_pipe(fmt, damaged) == (kind, value)
