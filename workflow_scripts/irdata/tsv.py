"""Readers for the MS MARCO file formats, validated before any expensive stage runs.

A file is read by its content (irdata.plain_bytes): gzip, bzip2, xz and zstd are decompressed whatever the
name, a pipe is read once, and what no reader reads (an archive, UTF-16, binary data) is refused saying what it
is. The fast path is pyarrow's CSV reader (columnar, multi-threaded); when it rejects a file, a slow
scan finds the exact line so that the error names the file, the line and the field. What would break
a file written from the input is refused here too: an id holding whitespace or a control character
(a TREC line is split on any whitespace, a TSV line on tabs), a NUL byte (the end of a string to C
readers), and a carriage return that is not part of a CRLF line end (pyarrow ends a record there, so
it would split one in two, and the line numbers of every later error would be wrong). So is what two files
joined with `cat` leave in the middle of one: a header line, a byte-order mark at the start of a line.
"""

from __future__ import annotations

import mmap
import re
import sys
import unicodedata
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .errors import InputError
from .plain_bytes import open_plain, plain_path, refuse_stream, rereadable
from .query_text import normalize_query_text

QRELS_COLUMNS = ("query_id", "iteration", "passage_id", "relevance")

# What an id may not hold: the C0 and C1 controls (NUL, TAB, LF, CR, ...), space, DEL and Unicode's
# other space separators, a superset of what Python's str.split() (evaluate.py, ir_measures) splits on, and the
# byte-order mark (an invisible character, left at the start of a line where two files are joined)
ID_FORBIDDEN = ((0x00, 0x20), (0x7F, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A), (0x2028, 0x2029),
                (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF))
_ID_FORBIDDEN_RE2 = "[" + "".join(f"\\x{{{lo:x}}}-\\x{{{hi:x}}}" for lo, hi in ID_FORBIDDEN) + "]"
_BOM = b"\xef\xbb\xbf"
# what a byte-order mark at the start of a line but the first says
JOINED_BOM = ("a byte-order mark (EF BB BF) starts the line, as where two files are joined with cat (the mark of the "
              "second stays at the start of its first line): remove it")
# the column names of the TSV and TREC formats and of their BEIR, ir_datasets and pandas exports, which a header
# line starts with (header_lines)
HEADER_WORDS = frozenset({
    "id", "_id", "pid", "qid", "did", "docid", "doc_id", "docno", "passage_id", "query_id", "corpus_id", "topic",
    "topic_id", "text", "passage", "query", "body", "contents", "title", "question", "document", "iteration", "iter",
    "q0", "relevance", "rel", "score", "label", "grade", "judgment", "rank", "tag", "run", "run_id", "runid",
})
# one identifier-like word: how a column is named, what no text of a query or passage and no relevance (an
# integer) is
_COLUMN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
# trec_eval splits a TREC line on whitespace: spaces and tabs, runs of them, before and after the fields too
_TREC_SPACE = "[ \t\x0b\x0c]+"
# pyarrow's default block size first; a record must fit in a block, so a longer line is read again
# with a larger one, up to the last (a longer line is refused: it is more likely a lost line end).
BLOCK_SIZES = (1 << 20, 16 << 20, 256 << 20)
_SCAN_CHUNK = 16 << 20


# what a reader skips as a blank line (made of these bytes only): an empty one (pyarrow's CSV reader), one of
# JSON whitespace (JSON lines), one of whitespace (TREC files, as trec_eval and ir_measures skip it)
LINE_END, JSON_BLANK, TREC_BLANK = b"\r\n", b" \t\r\n", b" \t\x0b\x0c\r\n"


def _nonblank_line_numbers(path, blank: bytes = LINE_END):
    """Yield the 1-based physical line number and the bytes of every line a reader reads a record from, every line
    not made of `blank` bytes only (a byte-order mark at the start of the file skipped), of the file's plain
    text."""
    with open_plain(path) as fh:
        for number, raw in enumerate(fh, start=1):
            if (raw.removeprefix(_BOM) if number == 1 else raw).strip(blank):
                yield number, raw


def _line_of_record(path, record_index: int, blank: bytes = LINE_END) -> int | None:
    """The line of a file's record `record_index` (0-based, blank lines skipped); None for a pipe or a device,
    which cannot be read again."""
    if not rereadable(path):
        return None
    for i, (number, _) in enumerate(_nonblank_line_numbers(path, blank)):
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


def _require_nonempty(path: Path, blank: bytes = LINE_END) -> None:
    if path.stat().st_size == 0 or not any(True for _ in _nonblank_line_numbers(path, blank)):
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


def _refuse_bad_bytes(path: Path, names: list[str], delimiter: str | None) -> None:
    """A NUL, or a carriage return not part of a CRLF line end, is an InputError naming its line and field (the
    fields separated by `delimiter`, by whitespace when None).

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
    index = (before.count(delimiter.encode()) if delimiter else
             len(re.split(_TREC_SPACE.encode(), before.lstrip(TREC_BLANK))) - 1)
    field = names[min(index, len(names) - 1)]
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


def _read_delimited(path: Path, names: list[str], delimiter: str, lenient: bool = False) -> pa.Table | None:
    """The `names` fields of every line, split at `delimiter`; a line of another number of fields is refused, or
    with `lenient` (a TREC file, whose fields whitespace separates: the caller splits it so) gives None."""
    _refuse_bad_bytes(path, names, None if lenient else delimiter)
    bad_rows = []

    def on_invalid(row):
        bad_rows.append(row)
        return "skip"

    def read(block_size):
        bad_rows.clear()
        with pa.OSFile(str(path)) as source:  # not the path: pyarrow would decompress a file named .gz
            return pacsv.read_csv(
                source,
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
    if bad_rows and lenient:
        return None
    if bad_rows:
        row = bad_rows[0]
        line = row.number
        if line is None:
            line = next(
                n for n, raw in _nonblank_line_numbers(path)
                if len(raw.rstrip(b"\r\n").split(delimiter.encode())) != len(names)
            )
        if row.text.startswith("\ufeff"):
            raise InputError(path, JOINED_BOM, line=line)
        raise InputError(
            path,
            f"expected {len(names)} tab-separated fields "
            f"({', '.join(names)}), found {row.actual_columns}; "
            f"{len(bad_rows)} such line(s) in the file",
            line=line,
        )
    return table


def _character(c: str) -> str:
    name = unicodedata.name(c, "")
    return f"U+{ord(c):04X}{' ' + name if name else ''}"


def id_problem(value: str, what: str = "id") -> str | None:
    """Why `value` cannot be an id (empty, or holding whitespace, a control character or a byte-order mark), or
    None."""
    if not value:
        return f"empty {what}"
    if value.startswith("\ufeff"):
        return f"{what} {value!r}: {JOINED_BOM}"
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


def _buffers(chunk: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """The offsets (one more than the values) and the bytes of a string chunk, as numpy views."""
    offsets = np.frombuffer(chunk.buffers()[1], np.int32)[chunk.offset:chunk.offset + len(chunk) + 1]
    data = chunk.buffers()[2]
    return offsets, (np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8))


def _printable_ascii_only(values: pa.ChunkedArray) -> bool:
    """Every byte of every value (pa.string) is printable ASCII but space, so no id character is forbidden:
    the common case, checked on the data buffers at memory speed (the regex costs 20 times more)."""
    for chunk in values.chunks:
        if len(chunk):
            offsets, data = _buffers(chunk)
            data = data[offsets[0]:offsets[-1]]
            if ((data < 0x21) | (data > 0x7E)).any():
                return False
    return True


def _first_bytes(values: pa.ChunkedArray) -> np.ndarray:
    """The first byte of each value (pa.string), 0 for an empty one: read off the buffers, no copy of a value."""
    parts = [np.zeros(0, np.uint8)]
    for chunk in values.chunks:
        offsets, data = _buffers(chunk)
        starts = offsets[:-1]
        first = np.zeros(len(chunk), np.uint8)
        nonempty = offsets[1:] > starts
        first[nonempty] = data[starts[nonempty]]
        parts.append(first)
    return np.concatenate(parts)


def _byte_class(characters: bytes) -> np.ndarray:
    table = np.zeros(256, bool)
    table[list(characters)] = True
    return table


_LETTER = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_STARTS_WORD, _STARTS_NAME = _byte_class(_LETTER + b"0123456789"), _byte_class(_LETTER + b"_")


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


def _first_wordless(texts: pa.ChunkedArray) -> int | None:
    """The first text that the dedup's text rule (irdata.query_text.normalize_query_text) leaves empty (empty, or
    punctuation and whitespace only), or None. A text that starts with an ASCII letter or digit has a word: only
    the others are normalised."""
    maybe = np.flatnonzero(~_STARTS_WORD[_first_bytes(texts)])
    if not maybe.size:
        return None
    index = _first(pc.equal(pc.utf8_length(normalize_query_text(texts.take(maybe))), 0))
    return None if index is None else int(maybe[index])


def _is_header(fields: list[str]) -> bool:
    """Whether a line of these fields is a header line: its first field a column name of these formats
    (HEADER_WORDS, any case, `-` as `_`) and its last one a single identifier-like word (`query_text`,
    `Passage`, `rel`). A record meets this only with a column name for its id and a one-word text (a relevance
    is an integer, never such a word)."""
    return (len(fields) >= 2 and fields[0].lower().replace("-", "_") in HEADER_WORDS
            and _COLUMN_NAME.fullmatch(fields[-1].strip()) is not None)


def _trec_fields(line: str) -> list[str]:
    return re.split(_TREC_SPACE, line.strip(TREC_BLANK.decode()))


def header_lines(path, trec: bool = False) -> int:
    """1 when the first non-blank line of a TSV file (a TREC file with `trec`) is a header line, else 0.

    The formats have none, but pandas' to_csv and spreadsheet exports write one: a first line of column names
    (_is_header's rule; a TSV line's fields are separated by tabs, a TREC line's by whitespace) is skipped by the
    readers and counted in the input check's report (`header_lines`). A pipe or a device (read once already by
    the reader) is refused."""
    refuse_stream(path, "its first line is read again to count a header line")
    first = next(_nonblank_line_numbers(path, TREC_BLANK if trec else LINE_END), None)
    if first is None:
        return 0
    number, raw = first
    line = (raw.removeprefix(_BOM) if number == 1 else raw).decode("utf-8", "replace")
    return int(_is_header(_trec_fields(line) if trec else line.rstrip("\r\n").split("\t")))


def _refuse_header_again(path, first: pa.ChunkedArray, last: pa.ChunkedArray, line_of) -> None:
    """A header line (_is_header, of the first and last fields of each row) after the first record, as where two
    files are joined with cat, is refused naming its line: it would be read as a record. Only the rows whose
    first field starts with an ASCII letter or `_` are looked at."""
    maybe = np.flatnonzero(_STARTS_NAME[_first_bytes(first)])
    if not maybe.size:
        return
    names = pc.replace_substring(pc.ascii_lower(first.take(maybe)), "-", "_")
    header = pc.and_(pc.is_in(names, value_set=pa.array(sorted(HEADER_WORDS))),
                     pc.match_substring_regex(pc.utf8_trim_whitespace(last.take(maybe)),
                                              f"^{_COLUMN_NAME.pattern}$"))
    index = _first(header)
    if index is not None:
        raise InputError(path, "a header line (column names) after the first record, as where two files are joined "
                         "with cat; only the first line may be a header: remove it", line=line_of(int(maybe[index])))


def _check_texts(path, table: pa.Table, text_name: str, line_of) -> None:
    index = _first_wordless(table.column(text_name))
    if index is not None:
        raise InputError(path, f"{text_name} {table.column(text_name)[index].as_py()!r} has no word (it is empty, or "
                         "punctuation and spaces only): the dedup, which drops punctuation, would take it for every "
                         "other such text; write the text or remove the line", line=line_of(index), field=text_name)


def read_id_text_tsv(path, id_name: str = "id", text_name: str = "text", unique: bool = True,
                     wordless: bool = False) -> pa.Table:
    """Read a `id<TAB>text` file (collection.tsv, queries.*.tsv), plain or compressed: non-empty ids, unique
    unless `unique` is false; a header line (header_lines) skipped; a text without a word (_first_wordless)
    refused unless `wordless`."""
    with plain_path(path) as plain:
        _require_nonempty(plain)
        table = _read_delimited(plain, [id_name, text_name], "\t")
        skip = int(_is_header([table.column(id_name)[0].as_py(), table.column(text_name)[0].as_py()]))
        if skip and table.num_rows == 1:
            raise InputError(plain, "no row after its header line; expected at least one record",
                             line=next(_nonblank_line_numbers(plain))[0])
        table = table.slice(skip)

        def line_of(row):
            return _line_of_record(plain, row + skip)

        _refuse_header_again(plain, table.column(id_name), table.column(text_name), line_of)
        _check_ids(plain, table, id_name, line_of)
        dup = _first_duplicate(table.column(id_name)) if unique else None
        if dup is not None:
            value = table.column(id_name)[dup].as_py()
            raise InputError(plain, f"duplicate id {value!r}; ids must be unique", line=line_of(dup), field=id_name)
        if not wordless:
            _check_texts(plain, table, text_name, line_of)
        return table


def _trec_lines(path: Path) -> tuple[pa.ChunkedArray, np.ndarray]:
    """The lines of a TREC file that hold more than whitespace, trimmed, and the number of each: the file split at
    its line feeds on its buffer, no Python loop over lines."""
    data = path.read_bytes()
    view = np.frombuffer(data, np.uint8)
    start = len(_BOM) if data.startswith(_BOM) else 0
    offsets = np.concatenate([[start], np.flatnonzero(view == 10) + 1]).astype(np.int64)
    if offsets[-1] < len(data):
        offsets = np.append(offsets, len(data))
    buffer, chunks = pa.py_buffer(data), []
    for lo in range(0, len(offsets) - 1, 1 << 20):  # a chunk's offsets are int32: at most 2 GiB of lines
        cut = offsets[lo:lo + (1 << 20) + 1]
        if cut[-1] - cut[0] >= 1 << 31:
            raise InputError(path, "more than 2 GiB in a million lines; is it a TREC file?")
        chunks.append(pa.StringArray.from_buffers(len(cut) - 1, pa.py_buffer((cut - cut[0]).astype(np.int32)),
                                                  buffer.slice(int(cut[0]), int(cut[-1] - cut[0]))))
    try:
        for chunk in chunks:
            chunk.validate(full=True)
    except pa.ArrowInvalid:
        raise InputError(path, "not valid UTF-8; re-encode the file as UTF-8", line=_first_bad_utf8_line(path)) \
            from None
    lines = pc.utf8_trim(pa.chunked_array(chunks, pa.string()), TREC_BLANK.decode())
    kept = pc.greater(pc.utf8_length(lines), 0)
    return lines.filter(kept), np.flatnonzero(kept.to_numpy(zero_copy_only=False)) + 1


def _split_apart(values: pa.ChunkedArray) -> bool:
    """Whether a field read between single delimiters is empty or holds whitespace: split on whitespace, as
    trec_eval splits a line, its line has other fields."""
    if _printable_ascii_only(values):
        return pc.any(pc.equal(pc.binary_length(values), 0)).as_py()
    return pc.any(pc.match_substring_regex(values, f"^$|{_TREC_SPACE}")).as_py()


def _trec_table(path: Path, names: list[str]) -> tuple[pa.Table, object]:
    """The `names` fields of the records of a TREC file after its header line, and line_of(row). The fast path is
    pyarrow's CSV reader at the separator of the first line; a file it would split otherwise than whitespace does
    (a trailing space, a run of spaces, a line of whitespace only) is split on whitespace line by line, as
    columns."""
    first = next(_nonblank_line_numbers(path, TREC_BLANK))[1]
    table = _read_delimited(path, names, "\t" if b"\t" in first else " ", lenient=True)
    if table is not None and not any(_split_apart(table.column(name)) for name in names):
        skip = int(_is_header([table.column(name)[0].as_py() for name in names]))
        if skip and table.num_rows == 1:
            raise InputError(path, "no row after its header line; expected at least one record",
                             line=next(_nonblank_line_numbers(path, TREC_BLANK))[0])
        return table.slice(skip), lambda row: _line_of_record(path, row + skip, TREC_BLANK)
    lines, numbers = _trec_lines(path)
    fields = pc.ascii_split_whitespace(lines)
    skip = int(_is_header(fields[0].as_py()))
    if skip and len(fields) == 1:
        raise InputError(path, "no row after its header line; expected at least one record", line=int(numbers[0]))
    fields, numbers = fields.slice(skip), numbers[skip:]
    count = pc.list_value_length(fields)
    index = _first(pc.not_equal(count, len(names)))
    if index is not None:
        line = int(numbers[index])
        if fields[index][0].as_py().startswith("\ufeff"):
            raise InputError(path, JOINED_BOM, line=line)
        others = int(pc.sum(pc.not_equal(count, len(names))).as_py())
        raise InputError(path, f"expected {len(names)} whitespace-separated fields ({', '.join(names)}), found "
                         f"{count[index].as_py()}; {others} such line(s) in the file", line=line)
    return (pa.table({name: pc.list_element(fields, i) for i, name in enumerate(names)}),
            lambda row: int(numbers[row]))


def read_trec_qrels(path, grades: tuple[int, ...] | None = None) -> pa.Table:
    """Read TREC qrels (`qid iteration docid relevance`), plain or compressed, as trec_eval and ir_measures read
    them: fields separated by whitespace (spaces and tabs, runs of them, before and after the fields too), a line
    of whitespace only skipped, a header line (header_lines) skipped. Relevance is an integer (int32); with
    `grades`, one of them (e.g. the audit's 0-3)."""
    with plain_path(path) as plain:
        _require_nonempty(plain, TREC_BLANK)
        table, line_of = _trec_table(plain, list(QRELS_COLUMNS))
        _refuse_header_again(plain, table.column("query_id"), table.column("relevance"), line_of)
        for name in ("query_id", "iteration", "passage_id"):
            _check_ids(plain, table, name, line_of)
        relevance = table.column("relevance")
        index = _first(pc.invert(pc.match_substring_regex(relevance, r"^-?[0-9]{1,9}$")))
        if index is not None:
            raise InputError(plain, f"relevance {relevance[index].as_py()!r} is not an integer of at most 9 digits",
                             line=line_of(index), field="relevance")
        relevance = pc.cast(relevance, pa.int32())
        if grades is not None:
            index = _first(pc.invert(pc.is_in(relevance, value_set=pa.array(grades, pa.int32()))))
            if index is not None:
                raise InputError(plain, f"relevance {relevance[index].as_py()} is not a grade; grades are "
                                 f"{', '.join(map(str, grades))}", line=line_of(index), field="relevance")
        table = table.set_column(3, "relevance", relevance)
        pairs = pc.binary_join_element_wise(table.column("query_id"), table.column("passage_id"), "\t")
        dup = _first_duplicate(pairs)
        if dup is not None:
            raise InputError(plain, "the same (query_id, passage_id) pair appears twice", line=line_of(dup),
                             field="passage_id")
        return table


def check_ids_known(path, table: pa.Table, field: str, known: pa.ChunkedArray | pa.Array, what: str,
                    rows=None) -> None:
    """Fail on the first value of `field` that is not in `known` (e.g. a qrels pid missing from the collection).
    `table` is every record of the TREC file `path` as read_trec_qrels read it, or, with `rows`, those records of
    it."""
    present = pc.is_in(table.column(field), value_set=pa.chunked_array(known).combine_chunks()
                       if isinstance(known, pa.ChunkedArray) else known)
    if not pc.all(present).as_py():
        index = pc.index(present, False).as_py()
        missing = int(len(present) - pc.sum(present).as_py())
        record = int(rows[index]) if rows is not None else index
        line = (_line_of_record(path, record + header_lines(path, trec=True), TREC_BLANK) if rereadable(path)
                else None)
        raise InputError(
            path,
            f"{field} {table.column(field)[index].as_py()!r} is not in {what} "
            f"({missing} such row(s) in the file)",
            line=line,
            field=field,
        )
