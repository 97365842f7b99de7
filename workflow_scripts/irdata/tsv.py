"""Readers for the MS MARCO file formats, validated before any expensive stage runs.

The fast path is pyarrow's CSV reader (columnar, multi-threaded); when it rejects a file, a slow
scan finds the exact line so that the error names the file, the line and the field. What would break
a file written from the input is refused here too: an id holding whitespace or a control character
(a TREC line is split on any whitespace, a TSV line on tabs), a NUL byte (the end of a string to C
readers), and a carriage return that is not part of a CRLF line end (pyarrow ends a record there, so
it would split one in two, and the line numbers of every later error would be wrong).
"""

from __future__ import annotations

import mmap
import sys
import unicodedata
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .errors import InputError

QRELS_COLUMNS = ("query_id", "iteration", "passage_id", "relevance")

# What an id may not hold: the C0 and C1 controls (NUL, TAB, LF, CR, ...), space, DEL and Unicode's
# other space separators, a superset of what Python's str.split() (evaluate.py, ir_measures) splits on.
ID_FORBIDDEN = ((0x00, 0x20), (0x7F, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
                (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))
_ID_FORBIDDEN_RE2 = "[" + "".join(f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in ID_FORBIDDEN) + "]"
_BOM = b"\xef\xbb\xbf"
# the words a header line is made of (header_lines): the column names of the TSV and TREC formats and of their
# BEIR, ir_datasets and pandas exports
HEADER_WORDS = frozenset({
    "id", "_id", "pid", "qid", "did", "docid", "doc_id", "docno", "passage_id", "query_id", "corpus_id", "topic",
    "topic_id", "text", "passage", "query", "body", "contents", "title", "question", "document", "iteration", "iter",
    "q0", "relevance", "rel", "score", "label", "grade", "judgment", "rank", "tag", "run", "run_id", "runid",
})
# pyarrow's default block size first; a record must fit in a block, so a longer line is read again
# with a larger one, up to the last (a longer line is refused: it is more likely a lost line end).
BLOCK_SIZES = (1 << 20, 16 << 20, 256 << 20)
_SCAN_CHUNK = 16 << 20


# what pyarrow's readers skip as a blank line: an empty one (CSV), or one of JSON whitespace only (JSON lines)
_LINE_END, _JSON_WHITESPACE = b"\r\n", b" \t\r\n"


def _nonblank_line_numbers(path: Path, json_lines: bool = False):
    """Yield the 1-based physical line number and the bytes of every line pyarrow reads a record from: every
    non-empty line of a CSV file, every line of a JSON-lines file that is not whitespace only."""
    blank = _JSON_WHITESPACE if json_lines else _LINE_END
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if (raw.removeprefix(_BOM) if number == 1 else raw).strip(blank):  # pyarrow skips a byte-order mark
                yield number, raw


def _line_of_record(path: Path, record_index: int, json_lines: bool = False) -> int:
    for i, (number, _) in enumerate(_nonblank_line_numbers(path, json_lines)):
        if i == record_index:
            return number
    raise IndexError(record_index)


def _first_bad_utf8_line(path: Path) -> int | None:
    for number, raw in _nonblank_line_numbers(path):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            return number
    return None


def _require_nonempty(path: Path, json_lines: bool = False) -> None:
    if not path.exists():
        raise InputError(path, "file not found; check the path in config.yaml")
    if path.stat().st_size == 0 or not any(True for _ in _nonblank_line_numbers(path, json_lines)):
        raise InputError(path, "file is empty; expected at least one record"
                         + (" (it holds no record, only whitespace)" if path.stat().st_size else ""))


def _first_lone_cr(buffer, end: int) -> int | None:
    """Offset of the first carriage return before `end` not followed by a line feed, or None."""
    data = np.frombuffer(buffer, np.uint8)
    for lo in range(0, end, _SCAN_CHUNK):
        cr = lo + np.flatnonzero(data[lo:min(lo + _SCAN_CHUNK, end)] == 13)
        after = cr + 1
        lone = cr[(after >= len(data)) | (data[np.minimum(after, len(data) - 1)] != 10)]
        if len(lone):
            return int(lone[0])
    return None


def _lines_before(buffer, offset: int) -> int:
    data = np.frombuffer(buffer, np.uint8)
    return sum(int(np.count_nonzero(data[lo:min(lo + _SCAN_CHUNK, offset)] == 10))
               for lo in range(0, offset, _SCAN_CHUNK))


def _refuse_bad_bytes(path: Path, names: list[str], delimiter: str) -> None:
    """A NUL, or a carriage return not part of a CRLF line end, is an InputError naming its line and field.

    memchr over the mapped file (mmap.find); the vector scan for lone CRs only where it holds a CR."""
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        nul = mm.find(b"\0")
        end = nul if nul >= 0 else len(mm)
        bad = _first_lone_cr(mm, end) if mm.find(b"\r", 0, end) >= 0 else None
        if bad is None and nul < 0:
            return
        bad = nul if bad is None else bad
        line = 1 + _lines_before(mm, bad)
        before, what = mm[mm.rfind(b"\n", 0, bad) + 1:bad], mm[bad:bad + 1]
    field = names[min(before.count(delimiter.encode()), len(names) - 1)]
    where = f"(byte {len(before) + 1} of the line)"
    problem = (f"a NUL byte {where}; remove it" if what == b"\0" else
               f"a carriage return {where} that does not end the line as CRLF: it would split the record in two; "
               "remove it or end every line with LF or CRLF")
    raise InputError(path, problem, line=line, field=field)


def _first_line_longer_than(path: Path, size: int) -> int | None:
    with open(path, "rb") as fh:
        number = 0
        while raw := fh.readline(size + 1):  # bounded: the file may have no line end at all
            number += 1
            if len(raw) > size:
                return number
    return None


def read_in_growing_blocks(path: Path, read, unparsed) -> pa.Table:
    """`read(block_size)` with pyarrow's default block size first; a record must fit in a block, so a file
    with a longer line is read again with a larger one, up to the last (a longer line is refused naming it).
    Any other ArrowInvalid becomes the InputError `unparsed(exc)` gives."""
    for block_size in BLOCK_SIZES:
        try:
            return read(block_size)
        except pa.ArrowInvalid as exc:
            # pyarrow's words for a record longer than a block
            if "straddl" not in str(exc):
                raise unparsed(exc) from exc
            if block_size == BLOCK_SIZES[-1]:
                raise InputError(path, f"a line longer than {block_size >> 20} MiB; is a line end missing?",
                                 line=_first_line_longer_than(path, block_size)) from exc
    raise AssertionError("unreachable")


@contextmanager
def _undecodable_rows_unprinted(handler):
    """pyarrow cannot hand the invalid-row `handler` a row that is not UTF-8: it prints the UnicodeDecodeError as
    "Exception ignored" and fails the read, which the reader then reports naming the line. Only the print goes."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if not (unraisable.object is handler and isinstance(unraisable.exc_value, UnicodeDecodeError)):
            previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def _read_delimited(path: Path, names: list[str], delimiter: str) -> pa.Table:
    _refuse_bad_bytes(path, names, delimiter)
    bad_rows = []

    def on_invalid(row):
        bad_rows.append(row)
        return "skip"

    def read(block_size):
        bad_rows.clear()
        return pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, use_threads=True, block_size=block_size),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                escape_char=False,
                newlines_in_values=False,
                invalid_row_handler=on_invalid,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={n: pa.string() for n in names}, strings_can_be_null=False
            ),
        )

    def unparsed(exc):
        bad = _first_bad_utf8_line(path)
        if bad is not None:
            return InputError(path, "not valid UTF-8; re-encode the file as UTF-8", line=bad)
        return InputError(path, f"cannot be parsed: {exc}")

    with _undecodable_rows_unprinted(on_invalid):
        table = read_in_growing_blocks(path, read, unparsed)
    if bad_rows:
        row = bad_rows[0]
        line = row.number
        if line is None:
            line = next(
                n for n, raw in _nonblank_line_numbers(path)
                if len(raw.rstrip(b"\r\n").split(delimiter.encode())) != len(names)
            )
        raise InputError(
            path,
            f"expected {len(names)} {'tab' if delimiter == chr(9) else 'space'}-separated fields "
            f"({', '.join(names)}), found {row.actual_columns}; "
            f"{len(bad_rows)} such line(s) in the file",
            line=line,
        )
    return table


def _character(c: str) -> str:
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X}{' ' + name if name else ''}"


def id_problem(value: str, what: str = "id") -> str | None:
    """Why `value` cannot be an id (empty, or holding whitespace or a control character), or None."""
    if not value:
        return f"empty {what}"
    for i, c in enumerate(value):
        if any(lo <= ord(c) <= hi for lo, hi in ID_FORBIDDEN):
            return (f"{what} {value!r} holds {_character(c)} (character {i + 1}); an id must be free of whitespace "
                    "and control characters, which split or end the lines of TREC and TSV files")
    return None


def text_problem(value: str, what: str = "text") -> str | None:
    """Why `value` cannot be a text (it holds a NUL, which ends a string in C readers), or None."""
    if "\0" in value:
        return f"{what} holds a NUL character (character {value.index(chr(0)) + 1}); remove it"
    return None


def _first(mask) -> int | None:
    return pc.index(mask, True).as_py() if pc.any(mask).as_py() else None


def _printable_ascii_only(values: pa.ChunkedArray) -> bool:
    """Every byte of every value (pa.string) is printable ASCII but space, so no id character is forbidden:
    the common case, checked on the data buffers at memory speed (the regex costs 20 times more)."""
    for chunk in values.chunks:
        if len(chunk):
            offsets = np.frombuffer(chunk.buffers()[1], np.int32)[chunk.offset:chunk.offset + len(chunk) + 1]
            data = np.frombuffer(chunk.buffers()[2], np.uint8)[offsets[0]:offsets[-1]]
            if ((data < 0x21) | (data > 0x7E)).any():
                return False
    return True


def _check_ids(path: Path, table: pa.Table, id_name: str, line_of=None) -> None:
    """Every id of the column `id_name` is an id (id_problem); `line_of(row)` gives a row's line (by default
    the row's record of the file)."""
    ids = table.column(id_name)
    bad = pc.equal(pc.binary_length(ids), 0)
    if not _printable_ascii_only(ids):
        bad = pc.or_(bad, pc.match_substring_regex(ids, _ID_FORBIDDEN_RE2))
    index = _first(bad)
    if index is not None:
        line = line_of(index) if line_of else _line_of_record(path, index)
        raise InputError(path, id_problem(ids[index].as_py(), id_name), line=line, field=id_name)


def _first_duplicate(values: pa.ChunkedArray) -> int | None:
    """Index of the first value that repeats an earlier one, or None."""
    if pc.count_distinct(values).as_py() == len(values):
        return None
    dup = values.to_pandas().duplicated(keep="first").to_numpy()
    return int(dup.argmax())


def header_lines(path) -> int:
    """1 when the first non-blank line of a TSV or TREC file is a header line, else 0.

    The formats have none, but pandas' to_csv and spreadsheet exports write one: a first line of column names
    only (HEADER_WORDS, any case, `-` as `_`), at least two, is a header, skipped by the readers and counted in
    the input check's report (`header_lines`). A record is never made of such words only: its text holds others,
    its relevance is a number."""
    first = next(_nonblank_line_numbers(Path(path)), None)
    if first is None:
        return 0
    words = first[1].removeprefix(_BOM).decode("utf-8", "replace").split()
    return int(len(words) >= 2 and all(w.lower().replace("-", "_") in HEADER_WORDS for w in words))


def _after_header(path: Path, table: pa.Table):
    """(the records after a header line, line_of(row): the line of one of them)."""
    skip = header_lines(path)
    if skip and table.num_rows == skip:
        raise InputError(path, "no row after its header line; expected at least one record",
                         line=next(_nonblank_line_numbers(path))[0])
    return table.slice(skip), lambda row: _line_of_record(path, row + skip)


def read_id_text_tsv(path, id_name: str = "id", text_name: str = "text", unique: bool = True) -> pa.Table:
    """Read a `id<TAB>text` file (collection.tsv, queries.*.tsv): non-empty ids, unique unless `unique` is
    false; a header line (header_lines) skipped."""
    path = Path(path)
    _require_nonempty(path)
    table, line_of = _after_header(path, _read_delimited(path, [id_name, text_name], "\t"))
    _check_ids(path, table, id_name, line_of)
    dup = _first_duplicate(table.column(id_name)) if unique else None
    if dup is not None:
        value = table.column(id_name)[dup].as_py()
        raise InputError(path, f"duplicate id {value!r}; ids must be unique", line=line_of(dup), field=id_name)
    return table


def read_trec_qrels(path, grades: tuple[int, ...] | None = None) -> pa.Table:
    """Read TREC qrels (`qid iteration docid relevance`, space- or tab-separated; a header line skipped).
    Relevance is an integer (int32); with `grades`, one of them (e.g. the audit's 0-3)."""
    path = Path(path)
    _require_nonempty(path)
    lines = _nonblank_line_numbers(path)
    first = next(lines)[1]
    if header_lines(path):  # the separator of the records
        first = next(lines, (0, first))[1]
    delimiter = "\t" if b"\t" in first else " "
    table, line_of = _after_header(path, _read_delimited(path, list(QRELS_COLUMNS), delimiter))
    for name in ("query_id", "iteration", "passage_id"):
        _check_ids(path, table, name, line_of)
    relevance = table.column("relevance")
    index = _first(pc.invert(pc.match_substring_regex(relevance, r"^-?[0-9]{1,9}$")))
    if index is not None:
        raise InputError(path, f"relevance {relevance[index].as_py()!r} is not an integer of at most 9 digits",
                         line=line_of(index), field="relevance")
    relevance = pc.cast(relevance, pa.int32())
    if grades is not None:
        index = _first(pc.invert(pc.is_in(relevance, value_set=pa.array(grades, pa.int32()))))
        if index is not None:
            raise InputError(path, f"relevance {relevance[index].as_py()} is not a grade; grades are "
                             f"{', '.join(map(str, grades))}", line=line_of(index), field="relevance")
    table = table.set_column(3, "relevance", relevance)
    pairs = pc.binary_join_element_wise(table.column("query_id"), table.column("passage_id"), "\t")
    dup = _first_duplicate(pairs)
    if dup is not None:
        raise InputError(path, "the same (query_id, passage_id) pair appears twice", line=line_of(dup),
                         field="passage_id")
    return table


def check_ids_known(path, table: pa.Table, field: str, known: pa.ChunkedArray | pa.Array, what: str,
                    rows=None) -> None:
    """Fail on the first value of `field` that is not in `known` (e.g. a qrels pid missing from the collection).
    `table` is every record of `path` as its reader read it, or, with `rows`, those records of it."""
    present = pc.is_in(table.column(field), value_set=pa.chunked_array(known).combine_chunks()
                       if isinstance(known, pa.ChunkedArray) else known)
    if not pc.all(present).as_py():
        index = pc.index(present, False).as_py()
        missing = int(len(present) - pc.sum(present).as_py())
        record = int(rows[index]) if rows is not None else index
        raise InputError(
            path,
            f"{field} {table.column(field)[index].as_py()!r} is not in {what} "
            f"({missing} such row(s) in the file)",
            line=_line_of_record(Path(path), record + header_lines(path)),
            field=field,
        )
