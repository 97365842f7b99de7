"""Readers for BEIR-format inputs: corpus.jsonl, queries.jsonl and qrels/<split>.tsv, the layout every BEIR
dataset and `ir_datasets export` ship in.

BEIR's rules hold: ids are strings as written (a number where a string id belongs is refused, never
converted), a document has a title (possibly empty) and a text, a query belongs to a split through that
split's qrels, a qrels file starts with its header line `query-id<TAB>corpus-id<TAB>score`, and a score above
0 is a positive. A file is read by its content, plain or compressed (irdata.plain_bytes), as the TSV readers
read it. The fast path is pyarrow's JSON and CSV readers (columnar, multi-threaded, no Python loop
per document); when pyarrow rejects a file, a slow scan finds the exact line, so that every error names the
file, the line and the field, as the TSV readers do (irdata/tsv.py), whose id and text rules apply here too.
"""

from __future__ import annotations

import json
import mmap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson

from .errors import InputError
from .json_files import json_line_record
from .plain_bytes import plain_path
from .tsv import (
    _SCAN_CHUNK,
    JSON_BLANK,
    _check_ids,
    _check_texts,
    _first,
    _first_duplicate,
    _line_of_record,
    _nonblank_line_numbers,
    _read_delimited,
    _refuse_header_again,
    _require_nonempty,
    read_in_growing_blocks,
    text_problem,
)

CORPUS_FIELDS = ("_id", "title", "text")
QUERY_FIELDS = ("_id", "text")
QRELS_HEADER = ("query-id", "corpus-id", "score")


def _json_line(path: Path, record_index: int) -> int:
    return _line_of_record(path, record_index, JSON_BLANK)


def _one_record(path: Path, number: int, raw: bytes, fields: tuple[str, ...]) -> InputError | None:
    """Why the line `raw` is not one JSON object (json_line_record) whose `fields` are strings (a missing one
    allowed but `_id`)."""
    try:
        record = json_line_record(path, number, raw)
    except InputError as error:
        return error
    for field in fields:
        value = record.get(field)
        if value is None and field == "_id":
            return InputError(path, "no `_id`; every record needs its id", line=number, field=field)
        if value is not None and not isinstance(value, str):
            return InputError(path, f"{field} is a JSON {type(value).__name__} ({json.dumps(value)[:40]}), not "
                              "a string; BEIR ids and texts are strings as written", line=number, field=field)
    return None


def _describe_bad_line(path: Path, fields: tuple[str, ...]) -> tuple[InputError | None, int]:
    """The first line that is not one JSON object with string `fields`, and the number of records read."""
    records = 0
    for number, raw in _nonblank_line_numbers(path, JSON_BLANK):
        error = _one_record(path, number, raw, fields)
        if error is not None:
            return error, records
        records += 1
    return None, records


def _count_lines(path: Path) -> int:
    """The lines of a file that are not empty (nor a lone CR): at least its records when each is on a line of
    its own (a line of spaces is counted too). A vector count over the mapped file, at memory speed."""
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        data = np.frombuffer(mm, np.uint8)
        lines = int(data[-1] != 10)
        for lo in range(0, len(data), _SCAN_CHUNK):
            ends = lo + np.flatnonzero(data[lo:lo + _SCAN_CHUNK] == 10)
            before = np.where(ends >= 1, data[np.maximum(ends - 1, 0)], 10)  # the file's start ends a line
            two_before = np.where(ends >= 2, data[np.maximum(ends - 2, 0)], 10)
            empty = (before == 10) | ((before == 13) & (two_before == 10))
            lines += len(ends) - int(np.count_nonzero(empty))
        del data  # the mapping closes only once no array views it
    return lines


def _invalid_utf8(path: Path, table: pa.Table, fields: tuple[str, ...]) -> InputError | None:
    """pyarrow's JSON reader takes the bytes of a string as they are: a value that is not UTF-8, named by line."""
    for name in fields:
        row = 0
        for chunk in table.column(name).chunks:
            try:
                chunk.validate(full=True)
            except pa.ArrowInvalid:
                for i, value in enumerate(chunk.cast(pa.binary()).to_pylist()):
                    try:
                        if value is not None:
                            value.decode("utf-8")
                    except UnicodeDecodeError as exc:
                        return InputError(path, f"not valid UTF-8 (byte {exc.start + 1} of the value); re-encode "
                                          "the file as UTF-8", line=_json_line(path, row + i), field=name)
            row += len(chunk)
    return None


def _read_jsonl(path: Path, fields: tuple[str, ...]) -> pa.Table:
    """The string `fields` of every record of a JSON-lines file (other fields ignored; a missing one null).

    pyarrow's reader is lenient where the format is not: it reads a record spread over lines and two records
    on one line, and keeps a string's bytes unchecked. So the records are counted against the lines, and the
    strings checked as UTF-8; where either differs, a scan line by line names the line."""
    _require_nonempty(path, JSON_BLANK)
    schema = pa.schema([(name, pa.string()) for name in fields])

    def read(block_size):
        with pa.OSFile(str(path)) as source:  # not the path: pyarrow would decompress a file named .gz
            return pajson.read_json(
                source,
                read_options=pajson.ReadOptions(use_threads=True, block_size=block_size),
                parse_options=pajson.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore",
                                                  newlines_in_values=False),
            ).select(list(fields))

    def unparsed(exc):
        return _describe_bad_line(path, fields)[0] or InputError(path, f"cannot be parsed as JSON lines: {exc}")

    table = read_in_growing_blocks(path, read, unparsed)
    if table.num_rows != _count_lines(path):
        error, records = _describe_bad_line(path, fields)
        if error is None and records != table.num_rows:
            error = InputError(path, f"{records} JSON lines read as {table.num_rows} records; is the file JSON lines?")
        if error is not None:
            raise error
    error = _invalid_utf8(path, table, fields)
    if error is not None:
        raise error
    return table


def _check_records(path: Path, table: pa.Table, text_fields: tuple[str, ...], required: str) -> pa.Table:
    """Ids present, valid and unique; the `required` text present; texts free of NUL; a missing title read as
    empty; a record whose texts are all empty refused."""
    index = _first(pc.is_null(table.column("_id")))
    if index is not None:
        raise InputError(path, "no `_id`; every record needs its id", line=_json_line(path, index), field="_id")
    _check_ids(path, table, "_id", line_of=lambda row: _json_line(path, row))
    dup = _first_duplicate(table.column("_id"))
    if dup is not None:
        raise InputError(path, f"duplicate _id {table.column('_id')[dup].as_py()!r}; ids must be unique",
                         line=_json_line(path, dup), field="_id")
    index = _first(pc.is_null(table.column(required)))
    if index is not None:
        line = _json_line(path, index)
        with open(path, "rb") as fh:  # the record's keys, read as JSON lines readers read it
            record = json_line_record(path, line, next(raw for number, raw in enumerate(fh, start=1) if number == line))
        problem = (f"`{required}` is null" if required in record else
                   f"no `{required}` (the record's keys: {', '.join(record)})")
        raise InputError(path, f"{problem}; a BEIR record holds its text under `{required}`", line=line,
                         field=required)
    for name in text_fields:
        table = table.set_column(table.schema.get_field_index(name), name, pc.fill_null(table.column(name), ""))
        index = _first(pc.match_substring(table.column(name), "\0"))
        if index is not None:
            raise InputError(path, text_problem(table.column(name)[index].as_py(), name),
                             line=_json_line(path, index), field=name)
    empty = None
    for name in text_fields:
        blank = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(table.column(name))), 0)
        empty = blank if empty is None else pc.and_(empty, blank)
    index = _first(empty)
    if index is not None:
        what = " and ".join(text_fields)
        raise InputError(path, f"empty {what}; a record needs some text", line=_json_line(path, index),
                         field=text_fields[-1])
    return table


def read_beir_corpus(path) -> pa.Table:
    """corpus.jsonl as a table of `id`, `title`, `text` (strings; a missing title is empty), in file order."""
    with plain_path(path) as plain:
        table = _check_records(plain, _read_jsonl(plain, CORPUS_FIELDS), ("title", "text"), "text")
    return table.rename_columns(["id", "title", "text"])


def read_beir_queries(path) -> pa.Table:
    """queries.jsonl as a table of `id`, `text`, in file order; a text needs a word, as a TSV query's does (the
    checked queries are written as TSV for the dedup)."""
    with plain_path(path) as plain:
        table = _check_records(plain, _read_jsonl(plain, QUERY_FIELDS), ("text",), "text")
        _check_texts(plain, table, "text", lambda row: _json_line(plain, row))
    return table.rename_columns(["id", "text"])


def read_beir_qrels(path) -> pa.Table:
    """qrels/<split>.tsv (after its header line) as `query_id`, `passage_id`, `relevance` (int32)."""
    with plain_path(path) as plain:
        return _read_beir_qrels(plain)


def _read_beir_qrels(path: Path) -> pa.Table:
    _require_nonempty(path)
    number, raw = next(_nonblank_line_numbers(path))
    header = raw.removeprefix(b"\xef\xbb\xbf").rstrip(b"\r\n").split(b"\t")
    if tuple(h.decode("utf-8", "replace") for h in header) != QRELS_HEADER:
        raise InputError(path, f"the first line must be the header {chr(9).join(QRELS_HEADER)!r} (tab-separated), "
                         "as in every BEIR qrels file", line=number)
    table = _read_delimited(path, list(QRELS_HEADER), "\t").slice(1)
    if table.num_rows == 0:
        raise InputError(path, "no row after its header line; a qrels file names at least one (query-id, corpus-id) "
                         "pair (remove the file if the split has none)", line=number)

    def line_of(row):  # row 0 is the record after the header
        return _line_of_record(path, row + 1)

    _refuse_header_again(path, table.column("query-id"), table.column("score"), line_of)
    for name in ("query-id", "corpus-id"):
        _check_ids(path, table, name, line_of=line_of)
    score = table.column("score")
    index = _first(pc.invert(pc.match_substring_regex(score, r"^-?[0-9]{1,9}$")))
    if index is not None:
        raise InputError(path, f"score {score[index].as_py()!r} is not an integer of at most 9 digits",
                         line=line_of(index), field="score")
    table = pa.table({"query_id": table.column("query-id"), "passage_id": table.column("corpus-id"),
                      "relevance": pc.cast(score, pa.int32())})
    pairs = pc.binary_join_element_wise(table.column("query_id"), table.column("passage_id"), "\t")
    dup = _first_duplicate(pairs)
    if dup is not None:
        raise InputError(path, "the same (query-id, corpus-id) pair appears twice", line=line_of(dup),
                         field="corpus-id")
    return table


def check_qrels_ids_known(path, qrels: pa.Table, corpus: pa.Table, queries: pa.Table) -> None:
    """Every qrels query id is in queries.jsonl and every corpus id in corpus.jsonl (BEIR's loader would
    drop such rows silently; here they stop the build naming the line)."""
    for field, known, what, name in (("query_id", queries, "queries.jsonl", "query-id"),
                                     ("passage_id", corpus, "corpus.jsonl", "corpus-id")):
        present = pc.is_in(qrels.column(field), value_set=known.column("id").combine_chunks())
        if not pc.all(present).as_py():
            index = pc.index(present, False).as_py()
            missing = int(len(present) - pc.sum(present).as_py())
            raise InputError(path, f"{name} {qrels.column(field)[index].as_py()!r} is not in {what} ({missing} such "
                             "row(s) in the file)", line=_line_of_record(Path(path), index + 1), field=name)


def positives(qrels: pa.Table) -> pa.Table:
    """The positive pairs of a BEIR qrels table: a score above 0."""
    return qrels.filter(pc.greater(qrels.column("relevance"), 0))
