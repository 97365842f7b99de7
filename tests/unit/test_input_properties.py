"""Property-based tests (hypothesis) over every reader of a file a user names in the config or hands to a printed
command: a generated valid file reads back exactly (any line ends, a byte-order mark, blank lines, a header line
where the format allows one); a damaged one (cut short, stray or changed bytes, another encoding, swapped columns,
a line doubled) is read or ends in the named refusal, the reader's error naming the file and a line of it, never
another exception; a NUL put into any line is refused naming that line (or, where the reader ignores that part of
the line, changes nothing it reads).

The readers of the workflow's inputs (irdata.plain_bytes under them) read a file by its content: a compressed or
piped file, whatever its name, reads as its plain text does, to the same records or the same refusal and line; a
container they do not read (an archive, UTF-16 or UTF-32 text, LZ4, gzip twice) is refused saying what it is; two
files joined with cat are refused at the line where the second starts with a byte-order mark or a header line.
TREC qrels read as ir_measures reads them."""

from __future__ import annotations

import bz2
import csv
import gzip
import io
import json
import lzma
import os
import tarfile
import tempfile
import threading
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import ir_measures
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irdata.beir import read_beir_corpus, read_beir_qrels, read_beir_queries
from irdata.doubting.audit_ranking import read_run_file
from irdata.doubting.examples import evaluate
from irdata.doubting.human_audit import COLUMNS, QUESTION, item_id, read_sheet
from irdata.errors import InputError
from irdata.eval44b.inputs import KINDS, load_papers, load_reviews
from irdata.plain_bytes import CODECS
from irdata.query_text import normalize_query_text
from irdata.reference_answers import NO_ANSWER, read_reference_answers
from irdata.shards import read_id_list
from irdata.tsv import HEADER_WORDS, ID_FORBIDDEN, read_id_text_tsv, read_trec_qrels

EXAMPLES = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BOM = b"\xef\xbb\xbf"


def _id_character(c: str) -> bool:
    return not any(lo <= ord(c) <= hi for lo, hi in ID_FORBIDDEN)


# ids: no whitespace or control character (what every format refuses), no lone surrogate; never a column name,
# which a first line of names only would make a header line
ids = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\ufeff").filter(_id_character),
              min_size=1, max_size=6).filter(lambda s: s.lower().replace("-", "_") not in HEADER_WORDS)
# one-line texts (TSV fields): anything but a tab, a line end, a NUL or a lone surrogate
line_texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\t\n\r\0\ufeff"), max_size=16)
# JSON strings: anything but a NUL or a lone surrogate (a line end is escaped)
json_texts = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=16)


def _has_word(text: str) -> bool:
    """What a query's or passage's text keeps (irdata.tsv._first_wordless): something beyond punctuation and
    whitespace."""
    return normalize_query_text(pa.array([text])).to_pylist() != [""]


# the texts of a TSV query or passage file
word_texts = line_texts.filter(_has_word)


@st.composite
def lines_file(draw, lines: list[str]) -> bytes:
    """`lines` as a file: LF or CRLF line ends, blank lines between, a last line end or none, a BOM or none."""
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    out = []
    for line in lines:
        out += [""] * draw(st.integers(0, 1)) + [line]
    text = eol.join(out) + (eol if draw(st.booleans()) else "")
    return (BOM if draw(st.booleans()) else b"") + text.encode("utf-8")


@st.composite
def jsonl_file(draw, records: list[dict]) -> bytes:
    """`records` as JSON lines: keys in any order, ASCII escapes or not, whitespace-only lines between."""
    lines = []
    for record in records:
        keys = draw(st.permutations(list(record)))
        lines.append(json.dumps({k: record[k] for k in keys}, ensure_ascii=draw(st.booleans())))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(["", "  ", "\t"])))
    return draw(lines_file(lines))


@dataclass
class Format:
    """A user file format: a strategy of (file bytes, what its reader returns), the reader (returning something
    comparable), the error it refuses with, and the byte that separates its fields; whether the reader reads a file
    by its content (irdata.plain_bytes: compressed, piped), and the line a file of it may start with that is no
    record, which a second file joined after a first with cat puts in its middle (None: a byte-order mark)."""

    name: str
    valid: Callable
    read: Callable
    separator: bytes = b"\t"
    error: type = InputError
    by_content: bool = False
    header: bytes | None = None


# -- valid files of each format --------------------------------------------------------------------------------


@st.composite
def id_text(draw):
    rows = draw(st.lists(st.tuples(ids, word_texts), min_size=1, max_size=6, unique_by=lambda r: r[0]))
    header = ["pid\ttext"] if draw(st.booleans()) else []
    return draw(lines_file(header + [f"{i}\t{t}" for i, t in rows])), rows


def read_id_text(path):
    table = read_id_text_tsv(path)
    return list(zip(table.column("id").to_pylist(), table.column("text").to_pylist()))


# what separates the fields of a TREC line, as trec_eval and ir_measures read it: runs of spaces and tabs
TREC_SPACES = st.text(st.sampled_from(" \t"), min_size=1, max_size=3)


@st.composite
def trec_qrels(draw, plain=st.booleans()):
    """TREC qrels: fields separated by whitespace, which may also lead and trail a line; lines of whitespace only
    between; with `plain` false, no header line and no byte-order mark (what ir_measures reads too)."""
    rows = draw(st.lists(st.tuples(ids, ids, ids, st.integers(-(10**9 - 1), 10**9 - 1)), min_size=1, max_size=6,
                         unique_by=lambda r: (r[0], r[2])))
    extras = draw(plain)
    lines = [(draw(st.sampled_from(["", " ", "\t"])) + "".join(f + draw(TREC_SPACES) for f in map(str, r[:3]))
              + str(r[3]) + draw(st.sampled_from(["", " ", "\t", " \t "]))) for r in rows]
    lines = [line for one in lines for line in ([one] if draw(st.booleans()) else [" \t", one])]
    header = [draw(TREC_SPACES).join(("qid", "Q0", "docid", "rel"))] if extras and draw(st.booleans()) else []
    data = draw(lines_file(header + lines))
    return (data if extras else data.removeprefix(BOM)), rows


def read_qrels(path):
    table = read_trec_qrels(path)
    return list(zip(*(table.column(c).to_pylist() for c in ("query_id", "iteration", "passage_id", "relevance"))))


def _some_text(texts):
    return texts.filter(lambda t: any(c.isalnum() for c in t))


@st.composite
def beir_corpus(draw):
    docs = draw(st.lists(st.tuples(ids, st.none() | json_texts, _some_text(json_texts)), min_size=1, max_size=5,
                         unique_by=lambda d: d[0]))
    records = [{"_id": i, "text": text, "metadata": {}} | ({} if title is None else {"title": title})
               for i, title, text in docs]
    return draw(jsonl_file(records)), [{"id": i, "title": title or "", "text": text} for i, title, text in docs]


@st.composite
def beir_queries(draw):
    queries = draw(st.lists(st.tuples(ids, _some_text(json_texts)), min_size=1, max_size=5, unique_by=lambda q: q[0]))
    records = [{"_id": i, "text": text, "metadata": {}} for i, text in queries]
    return draw(jsonl_file(records)), [{"id": i, "text": text} for i, text in queries]


@st.composite
def beir_qrels(draw):
    rows = draw(st.lists(st.tuples(ids, ids, st.integers(-5, 10**9 - 1)), min_size=1, max_size=6,
                         unique_by=lambda r: r[:2]))
    lines = ["query-id\tcorpus-id\tscore", *("\t".join(map(str, r)) for r in rows)]
    return draw(lines_file(lines)), [{"query_id": q, "passage_id": p, "relevance": s} for q, p, s in rows]


@st.composite
def reference_answers(draw):
    queries = draw(st.lists(st.tuples(ids | st.integers(0, 10**12), st.lists(json_texts, max_size=3)), min_size=1,
                            max_size=5, unique_by=lambda q: str(q[0])))
    records = [{"query_id": q, "answers": answers} for q, answers in queries]
    return draw(jsonl_file(records)), {str(q): [a for a in answers if a != NO_ANSWER] for q, answers in queries}


@st.composite
def qna_v21_answers(draw):
    """The MS MARCO QnA v2.1 JSON: one object, every field keyed by row, ids as integers; compact or indented."""
    queries = draw(st.lists(st.tuples(st.integers(0, 10**12), st.lists(json_texts, max_size=3)), min_size=1,
                            max_size=5, unique_by=lambda q: q[0]))
    obj = {"query_id": {str(row): q for row, (q, _) in enumerate(queries)},
           "answers": {str(row): answers or [NO_ANSWER] for row, (_, answers) in enumerate(queries)}}
    text = json.dumps(obj, indent=draw(st.sampled_from([None, 2])), ensure_ascii=draw(st.booleans()))
    return text.encode(), {str(q): [a for a in answers if a != NO_ANSWER] for q, answers in queries}


@st.composite
def id_list(draw):
    values = draw(st.lists(ids, min_size=1, max_size=8, unique=True))
    return draw(lines_file(values)), values


@st.composite
def trec_run(draw, packed=st.booleans()):
    lines = draw(st.lists(st.tuples(ids, ids, st.integers(1, 1000), st.floats(allow_nan=False), ids), min_size=1,
                          max_size=8))
    header = ["qid Q0 docno rank score tag"] if draw(st.booleans()) else []
    text = draw(lines_file(header + [f"{q} Q0 {d} {r} {s!r} {t}" for q, d, r, s, t in lines]))
    if draw(packed):
        text = gzip.compress(text, mtime=0)
    run: dict = {}
    for q, d, _, s, _ in lines:
        run.setdefault(q, {})[d] = s
    counts = {"lines": len(lines), "header_lines": len(header),
              "duplicate_lines": len(lines) - sum(len(docs) for docs in run.values())}
    return text, (run, counts)


def read_run(path):
    counts = {}
    run = read_run_file(path, counts)
    return dict(run), counts


@st.composite
def evaluate_qrels(draw):
    rows = draw(st.lists(st.tuples(ids, ids, st.integers(-3, 3)), min_size=1, max_size=6, unique_by=lambda r: r[:2]))
    qrels: dict = {}
    for q, p, g in rows:
        qrels.setdefault(q, {})[p] = g
    return draw(lines_file([f"{q} 0 {p} {g}" for q, p, g in rows])), qrels


# the human audit sheet: its items' texts as the release holds them, answers as annotators type them
SHEET_TEXTS = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\0\ufeff\u2028\u2029"
                                    "\x0b\x0c\x1c\x1d\x1e\x85"), max_size=16)
SHEET_ITEMS: dict = {}  # the texts of the items of the sheet drawn last, by item id (the reader's lookups)


def _item(pair) -> str:
    return item_id(pair[0], pair[1])


@st.composite
def sheet(draw):
    pairs = draw(st.lists(st.tuples(ids | st.sampled_from(["1", "1-2", "a%2D", "-"]), ids | st.sampled_from(
        ["2-3", "3", "%", "%25"])), min_size=1, max_size=4, unique_by=_item))
    SHEET_ITEMS.clear()
    encoding = draw(st.sampled_from(["utf-8", "utf-8-sig", "cp1252", "utf-16"]))
    separator = draw(st.sampled_from(["\t"] if encoding == "utf-16" else [",", ";"]))
    rows, expected = [list(COLUMNS)], {}
    queries = {q: draw(SHEET_TEXTS) for q in dict.fromkeys(q for q, _ in pairs)}
    passages = {p: draw(SHEET_TEXTS) for p in dict.fromkeys(p for _, p in pairs)}
    for q, p in pairs:
        query, passage = queries[q], passages[p]
        answer = draw(st.sampled_from(["", "yes", "Yes ", " partly", "NO"]))
        SHEET_ITEMS[item_id(q, p)] = (q, p, query, passage)
        rows.append([item_id(q, p), query, passage, QUESTION, answer, "yes|partly|no"])
        expected[item_id(q, p)] = answer.strip().lower()
    out = io.StringIO(newline="")
    csv.writer(out, delimiter=separator, lineterminator=draw(st.sampled_from(["\n", "\r\n"]))).writerows(rows)
    try:
        data = out.getvalue().encode(encoding)
    except UnicodeEncodeError:
        assume(False)
    assume(encoding != "cp1252" or not _is_utf8(data))  # a sheet in cp1252 that is valid UTF-8 reads as UTF-8
    return data, expected


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def read_sheet_answers(path):
    queries = {q: query for q, _, query, _ in SHEET_ITEMS.values()}
    passages = {p: passage for _, p, _, passage in SHEET_ITEMS.values()}
    return read_sheet(path, queries.get, passages.get)


@st.composite
def papers(draw):
    rows = draw(st.lists(st.tuples(ids.filter(lambda s: ":" not in s), ids, json_texts, json_texts,
                                   st.none() | json_texts, st.none() | st.integers(0, 10**9)), min_size=1, max_size=4,
                         unique_by=lambda r: (r[0], r[1])))
    records = [{"scheme": s, "id": i, "url": u, "title": t} | ({} if a is None else {"abstract": a})
               | ({} if s2 is None else {"s2_id": s2}) for s, i, u, t, a, s2 in rows]
    expected = [{"scheme": s, "id": i, "url": u, "title": t, "abstract": a or "", "s2_id": None if s2 is None else
                 str(s2)} for s, i, u, t, a, s2 in rows]
    return draw(jsonl_file(records)), expected


@st.composite
def reviews(draw):
    rows = draw(st.lists(st.tuples(ids, json_texts, st.sampled_from(KINDS), ids, st.none() | json_texts),
                         min_size=1, max_size=4, unique_by=lambda r: r[0]))
    records = [{"note_id": n, "note_url": u, "kind": k, "paper": p} | ({} if s is None else {"summary": s})
               for n, u, k, p, s in rows]
    expected = [{"note_id": n, "note_url": u, "kind": k, "paper": p, "summary": s or ""} for n, u, k, p, s in rows]
    return draw(jsonl_file(records)), expected


FORMATS = [
    Format("id_text_tsv", id_text, read_id_text, by_content=True, header=b"qid\tquery_text"),
    Format("trec_qrels", trec_qrels, read_qrels, by_content=True, header=b"query_id iteration passage_id relevance"),
    Format("beir_corpus", beir_corpus, lambda p: read_beir_corpus(p).to_pylist(), b",", by_content=True),
    Format("beir_queries", beir_queries, lambda p: read_beir_queries(p).to_pylist(), b",", by_content=True),
    Format("beir_qrels", beir_qrels, lambda p: read_beir_qrels(p).to_pylist(), by_content=True,
           header=b"query-id\tcorpus-id\tscore"),
    Format("reference_answers", reference_answers, read_reference_answers, b",", by_content=True),
    Format("qna_v21_answers", qna_v21_answers, read_reference_answers, b",", by_content=True),
    Format("id_list", id_list, read_id_list, b"\n"),
    Format("trec_run", trec_run, read_run, b" "),
    Format("evaluate_qrels", evaluate_qrels, lambda p: dict(evaluate.read_qrels(p)), b" ", evaluate.FormatError),
    Format("human_audit_sheet", sheet, read_sheet_answers, b","),
    Format("44b_papers", papers, load_papers, b",", by_content=True),
    Format("44b_reviews", reviews, load_reviews, b",", by_content=True),
]
BY_CONTENT = [f for f in FORMATS if f.by_content]


# -- damage ----------------------------------------------------------------------------------------------------


def damage(data: bytes, how: tuple, separator: bytes) -> bytes:
    kind, at = how[0], how[1] % (len(data) + 1)
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        return data[:at] + how[2] + data[at:]
    if kind == "replace":
        return data[:at] + how[2] + data[at + 1:]
    if kind == "encode":
        try:
            return data.decode("utf-8-sig").encode(how[2], errors="replace")
        except UnicodeDecodeError:  # a gzip run
            return data
    lines = data.split(b"\n")
    i = at % len(lines)
    if kind == "swap":
        fields = lines[i].split(separator)
        a, b = how[2] % len(fields), how[3] % len(fields)
        fields[a], fields[b] = fields[b], fields[a]
        lines[i] = separator.join(fields)
    else:  # double
        lines.insert(i, lines[i])
    return b"\n".join(lines)


DAMAGE = st.one_of(
    st.tuples(st.just("cut"), st.integers(0, 1 << 16)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=3)),
    st.tuples(st.just("insert"), st.integers(0, 1 << 16), st.sampled_from([b"\t", b"\n", b"\r", b'"', b",", b";",
                                                                           b"\xff", b"\xe9", b"\x00", b"{", b" "])),
    st.tuples(st.just("replace"), st.integers(0, 1 << 16), st.binary(min_size=1, max_size=1)),
    st.tuples(st.just("encode"), st.integers(0), st.sampled_from(["utf-16", "utf-16-le", "utf-32", "cp1252",
                                                                  "latin-1"])),
    st.tuples(st.just("swap"), st.integers(0, 1 << 16), st.integers(0, 6), st.integers(0, 6)),
    st.tuples(st.just("double"), st.integers(0, 1 << 16)),
)


def outcome(fmt: Format, path: Path):
    """("read", value) or ("refused", the error) of reading `path`; any other exception fails the test."""
    try:
        return "read", fmt.read(path)
    except fmt.error as error:
        return "refused", error


def check_refusal(error, path: Path, data: bytes) -> None:
    """The named refusal: the file, a line of it (1-based) when one is named, and a problem in words."""
    assert error.path == str(path) and error.problem
    if data.startswith(b"\x1f\x8b"):  # a line of a gzip file is a line of its text
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            return
    if error.line is not None:
        assert 1 <= error.line <= data.count(b"\n") + 1, (error.line, data)


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data())
def test_a_valid_file_reads_back_exactly(fmt, data):
    content, expected = data.draw(fmt.valid())
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / f"{fmt.name}.in"
        path.write_bytes(content)
        kind, value = outcome(fmt, path)
        assert (kind, value) == ("read", expected), value


@pytest.mark.parametrize("fmt", FORMATS, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data())
def test_a_damaged_file_is_read_or_refused_by_name_never_another_exception(fmt, data):
    content, _ = data.draw(fmt.valid())
    damaged = damage(content, data.draw(DAMAGE), fmt.separator)
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / f"{fmt.name}.in"
        path.write_bytes(damaged)
        kind, value = outcome(fmt, path)
        if kind == "refused":
            check_refusal(value, path, damaged)


# the same formats as text: a NUL goes into a line of a run before it is compressed
TEXT_FORMATS = [Format(f.name, lambda: trec_run(packed=st.just(False)), f.read, f.separator) if f.name == "trec_run"
                else f for f in FORMATS]


@pytest.mark.parametrize("fmt", TEXT_FORMATS, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data())
def test_a_nul_in_a_line_is_refused_naming_that_line(fmt, data):
    content, expected = data.draw(fmt.valid())
    assume(not content.startswith((b"\xff\xfe", b"\xfe\xff")))  # in UTF-16 a NUL byte is half a character
    lines = content.split(b"\n")
    numbered = [n for n, line in enumerate(lines) if line.strip(b"\r").removeprefix(BOM).strip()]
    n = data.draw(st.sampled_from(numbered))
    body = lines[n].rstrip(b"\r")
    start = len(BOM) if n == 0 and body.startswith(BOM) else 0
    at = data.draw(st.integers(start, len(body)))
    lines[n] = body[:at] + b"\0" + lines[n][at:]
    damaged = b"\n".join(lines)
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / f"{fmt.name}.in"
        path.write_bytes(damaged)
        kind, value = outcome(fmt, path)
        if kind == "refused":
            check_refusal(value, path, damaged)
            assert value.line == n + 1, (value, damaged)
        else:  # only a part of the line the reader does not read (a sheet's question column)
            assert fmt.name == "human_audit_sheet" and value == expected, (value, damaged)


# -- files read by their content: compressed, piped, mislabelled, containers, joined -------------------------


def _zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


# how a file reaches its reader: its bytes packed so, under any name
PACKINGS = {"gzip": lambda d: gzip.compress(d, mtime=0), "bzip2": bz2.compress, "xz": lzma.compress, "zstd": _zstd,
            "gzip, in pieces": lambda d: b"".join(gzip.compress(d[i:i + 7], mtime=0) for i in range(0, len(d), 7))}
NAMES = ["data", "data.gz", "data.tsv", "data.jsonl", "data.bz2", "data.txt.xz"]


@contextmanager
def piped(data: bytes):
    """A path that reads `data` once, as a shell's process substitution <(...) does: /dev/fd/N of a pipe a
    thread writes into."""
    read_end, write_end = os.pipe()

    def write():
        with open(write_end, "wb") as out:
            try:
                out.write(data)
            except BrokenPipeError:  # the reader stopped early
                pass

    writer = threading.Thread(target=write)
    writer.start()
    try:
        yield f"/dev/fd/{read_end}"
    finally:
        os.close(read_end)
        writer.join()


def _same(plain, other, other_path) -> None:
    """A file read by content gives what its plain text gives: the same records, or the same refusal (problem,
    line, field) naming its own path. A refusal of the whole file (no line) may say what the file is in other
    words (e.g. `UTF-16 text, gzip-compressed`)."""
    assert plain[0] == other[0], (plain, other)
    if plain[0] == "read":
        assert plain[1] == other[1]
        return
    assert other[1].path == other_path
    assert (other[1].line, other[1].field) == (plain[1].line, plain[1].field), (plain[1], other[1])
    if plain[1].line is not None:
        assert other[1].problem == plain[1].problem, (plain[1], other[1])


@pytest.mark.parametrize("fmt", BY_CONTENT, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data())
def test_a_compressed_piped_or_mislabelled_file_reads_as_its_plain_text(fmt, data):
    content, _ = data.draw(fmt.valid())
    if data.draw(st.booleans()):
        content = damage(content, data.draw(DAMAGE), fmt.separator)
    assume(not any(magic.match(content) for magic, _, _ in CODECS.values()))  # a damage that wrote a codec's magic
    packing = data.draw(st.sampled_from([None, *PACKINGS]))
    packed = PACKINGS[packing](content) if packing else content
    with tempfile.TemporaryDirectory() as name:
        plain_path = Path(name) / "plain"
        plain_path.write_bytes(content)
        plain = outcome(fmt, plain_path)
        path = Path(name) / data.draw(st.sampled_from(NAMES))
        path.write_bytes(packed)
        _same(plain, outcome(fmt, path), str(path))
        with piped(packed) as pipe:
            _same(plain, outcome(fmt, pipe), pipe)


def _tar(data: bytes, mode: str) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode=mode) as tar:
        info = tarfile.TarInfo("collection.tsv")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("corpus.jsonl", data)
    return out.getvalue()


def _lz4(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "lz4") as out:
        out.write(data)
    return sink.getvalue().to_pybytes()


def _text(data: bytes) -> str:
    return data.decode("utf-8-sig")


# what a reader does not read, and the words its refusal says it with
CONTAINERS = {
    "tar": (lambda d: _tar(d, "w"), "a tar archive (first member collection.tsv): extract it"),
    "tar.gz": (lambda d: _tar(d, "w:gz"), "a tar archive, gzip-compressed (first member collection.tsv)"),
    "zip": (_zip, "a zip archive (first member corpus.jsonl): extract it"),
    "lz4": (_lz4, "LZ4-compressed data: decompress it"),
    "gzip twice": (lambda d: gzip.compress(gzip.compress(d)), "gzip-compressed data inside gzip (compressed twice)"),
    "utf-16": (lambda d: _text(d).encode("utf-16"), "UTF-16 text (byte-order mark FF FE), not UTF-8: re-encode it"),
    "utf-16-be": (lambda d: _text(d).encode("utf-16-be"), "UTF-16BE text (no byte-order mark), not UTF-8"),
    "utf-32": (lambda d: _text(d).encode("utf-32"), "UTF-32 text (byte-order mark FF FE 00 00), not UTF-8"),
    "utf-16, gzip": (lambda d: gzip.compress(_text(d).encode("utf-16")), "UTF-16 text (byte-order mark FF FE), "
                     "gzip-compressed, not UTF-8: re-encode it as UTF-8, e.g. zcat"),
}


@pytest.mark.parametrize("fmt", BY_CONTENT, ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data())
def test_a_container_is_refused_saying_what_it_is(fmt, data):
    content, _ = data.draw(fmt.valid())
    kind = data.draw(st.sampled_from(sorted(CONTAINERS)))
    if kind == "utf-16-be":  # without a byte-order mark UTF-16 is known by the NULs of its ASCII characters
        assume(sum(c < "\x80" for c in _text(content)) * 2 >= len(_text(content)) >= 2)
    pack, words = CONTAINERS[kind]
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / data.draw(st.sampled_from(NAMES))
        path.write_bytes(pack(content))
        kind, error = outcome(fmt, path)
    assert kind == "refused" and error.path == str(path) and error.line is None, error
    assert words in error.problem, error


@pytest.mark.parametrize("fmt", [f for f in BY_CONTENT if f.name != "qna_v21_answers"], ids=lambda f: f.name)
@EXAMPLES
@given(data=st.data())
def test_two_files_joined_with_cat_are_refused_where_the_second_starts(fmt, data):
    """A second file with a byte-order mark, or a header line where the format has one, joined after a first (that
    ends its last line, as files written by tools do): refused naming the line the second file starts its records
    on, never read as a record."""
    first, _ = data.draw(fmt.valid())
    second, _ = data.draw(fmt.valid())
    first = first if first.endswith(b"\n") else first + b"\n"
    second = second.removeprefix(BOM)
    if fmt.header is None or data.draw(st.booleans()):
        second = BOM + second
    else:
        second = fmt.header + (b"\r\n" if b"\r\n" in first else b"\n") + second
    lines = second.split(b"\n")
    start = next(i for i, line in enumerate(lines) if line.strip(b"\r").strip(b" \t"))
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "joined"
        path.write_bytes(first + second)
        kind, error = outcome(fmt, path)
    assert kind == "refused", error
    assert error.line == first.count(b"\n") + start + 1, (error, first + second)
    assert "two files are joined" in error.problem, error


@EXAMPLES
@given(data=st.data())
def test_trec_qrels_read_as_ir_measures_reads_them(data):
    content, _ = data.draw(trec_qrels(plain=st.just(False)))
    with tempfile.TemporaryDirectory() as name:
        path = Path(name) / "qrels.txt"
        path.write_bytes(content)
        ours = read_qrels(path)
        theirs = [(q.query_id, q.iteration, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(path))]
        packed = Path(name) / "qrels.txt.gz"
        packed.write_bytes(gzip.compress(content))
        assert read_qrels(packed) == ours == theirs == [
            (q.query_id, q.iteration, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(packed))]
