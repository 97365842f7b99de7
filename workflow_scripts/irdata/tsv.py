"""Readers for the MS MARCO file formats, validated before any expensive stage runs.

The fast path is pyarrow's CSV reader (columnar, multi-threaded); when it rejects a file, a slow
scan finds the exact line so that the error names the file, the line and the field.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .errors import InputError

QRELS_COLUMNS = ("query_id", "iteration", "passage_id", "relevance")


def _nonblank_line_numbers(path: Path):
    """Yield the 1-based physical line number of every non-blank line (pyarrow skips blank ones)."""
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if raw.strip(b"\r\n"):
                yield number, raw


def _line_of_record(path: Path, record_index: int) -> int:
    for i, (number, _) in enumerate(_nonblank_line_numbers(path)):
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


def _require_nonempty(path: Path) -> None:
    if not path.exists():
        raise InputError(path, "file not found; check the path in config.yaml")
    if path.stat().st_size == 0 or not any(True for _ in _nonblank_line_numbers(path)):
        raise InputError(path, "file is empty; expected at least one record")


def _read_delimited(path: Path, names: list[str], delimiter: str) -> pa.Table:
    bad_rows = []

    def on_invalid(row):
        bad_rows.append(row)
        return "skip"

    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=names, use_threads=True),
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
    except pa.ArrowInvalid as exc:
        bad = _first_bad_utf8_line(path)
        if bad is not None:
            raise InputError(path, "not valid UTF-8; re-encode the file as UTF-8", line=bad) from exc
        raise InputError(path, f"cannot be parsed: {exc}") from exc
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


def _check_ids(path: Path, table: pa.Table, id_name: str) -> None:
    ids = table.column(id_name)
    stripped = pc.utf8_trim_whitespace(ids)
    empty = pc.equal(pc.utf8_length(stripped), 0)
    if pc.any(empty).as_py():
        index = pc.index(empty, True).as_py()
        raise InputError(path, "empty id", line=_line_of_record(path, index), field=id_name)
    padded = pc.not_equal(stripped, ids)
    if pc.any(padded).as_py():
        index = pc.index(padded, True).as_py()
        raise InputError(path, "id has leading or trailing whitespace",
                         line=_line_of_record(path, index), field=id_name)


def _first_duplicate(values: pa.ChunkedArray) -> int | None:
    """Index of the first value that repeats an earlier one, or None."""
    if pc.count_distinct(values).as_py() == len(values):
        return None
    dup = values.to_pandas().duplicated(keep="first").to_numpy()
    return int(dup.argmax())


def read_id_text_tsv(path, id_name: str = "id", text_name: str = "text") -> pa.Table:
    """Read a `id<TAB>text` file (collection.tsv, queries.*.tsv): unique, non-empty ids."""
    path = Path(path)
    _require_nonempty(path)
    table = _read_delimited(path, [id_name, text_name], "\t")
    _check_ids(path, table, id_name)
    dup = _first_duplicate(table.column(id_name))
    if dup is not None:
        value = table.column(id_name)[dup].as_py()
        raise InputError(path, f"duplicate id {value!r}; ids must be unique",
                         line=_line_of_record(path, dup), field=id_name)
    return table


def read_trec_qrels(path) -> pa.Table:
    """Read TREC qrels (`qid iteration docid relevance`, space- or tab-separated)."""
    path = Path(path)
    _require_nonempty(path)
    first = next(raw for _, raw in _nonblank_line_numbers(path))
    delimiter = "\t" if b"\t" in first else " "
    table = _read_delimited(path, list(QRELS_COLUMNS), delimiter)
    _check_ids(path, table, "query_id")
    _check_ids(path, table, "passage_id")
    relevance = table.column("relevance")
    is_int = pc.match_substring_regex(relevance, r"^-?[0-9]+$")
    if not pc.all(is_int).as_py():
        index = pc.index(is_int, False).as_py()
        raise InputError(path, f"relevance {relevance[index].as_py()!r} is not an integer",
                         line=_line_of_record(path, index), field="relevance")
    table = table.set_column(3, "relevance", pc.cast(relevance, pa.int32()))
    pairs = pc.binary_join_element_wise(table.column("query_id"), table.column("passage_id"), "\t")
    dup = _first_duplicate(pairs)
    if dup is not None:
        raise InputError(path, "the same (query_id, passage_id) pair appears twice",
                         line=_line_of_record(path, dup), field="passage_id")
    return table


def check_ids_known(path, table: pa.Table, field: str, known: pa.ChunkedArray | pa.Array, what: str) -> None:
    """Fail on the first value of `field` that is not in `known` (e.g. a qrels pid missing from the collection)."""
    present = pc.is_in(table.column(field), value_set=pa.chunked_array(known).combine_chunks()
                       if isinstance(known, pa.ChunkedArray) else known)
    if not pc.all(present).as_py():
        index = pc.index(present, False).as_py()
        missing = int(len(present) - pc.sum(present).as_py())
        raise InputError(
            path,
            f"{field} {table.column(field)[index].as_py()!r} is not in {what} "
            f"({missing} such row(s) in the file)",
            line=_line_of_record(Path(path), index),
            field=field,
        )
