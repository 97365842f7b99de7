"""Join the ids of a Doubting MS MARCO config with the original text. Needs only pyarrow.

    python examples/join_text.py --config judgments --split dev \
        --collection collection.tsv --queries queries.dev.small.tsv --out dev_judgments_text.parquet

The TSV files are the official ones (id TAB text, no header, no quoting). The collection is read in
blocks and only the passages the config refers to are kept, so memory follows the config, not the
8.8M-passage collection. Every column of the config is kept, `origin` included for judgments: one
pair can carry both an agent grade and an official-positive grade. Adds query_text and
passage_text (positive_text for train_queries); an id missing from the file gives a null text.
A build from a BEIR folder: give its corpus.jsonl and queries.jsonl (read as BEIR's JSON lines, as is a file
named neither .jsonl nor .tsv, such as a pipe, whose first line starts with {); the passage's title is added
too, as passage_title (positive_title).

Each file is read once, as examples/evaluate.py reads one (it sits beside this script): gzip, bzip2 or xz by
its first bytes whatever its name (collection.tsv.gz, a pipe, - for standard input), a tar or zip archive
refused (extract the file first). An id the config refers to that a file gives on two lines is refused,
naming the file, the id and both lines: which text is meant is the user's to say (ids it does not refer to are
not kept, so neither are their repeats checked). A line that cannot be read (no tab, not UTF-8, not JSON, no
_id) exits with its file and line. --out is written whole, its folder created.
"""

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson
import pyarrow.parquet as pq

if __package__:  # imported from the irdata package (its tests)
    from .evaluate import FormatError, open_binary, write_file
else:  # run as a script: evaluate.py sits beside it, in examples/
    # no __pycache__ written into the release folder, which holds exactly what its SHA256SUMS lists
    sys.dont_write_bytecode = True
    from evaluate import FormatError, open_binary, write_file

PASSAGE_COLUMN = {"qrels": "passage_id", "judgments": "passage_id", "train_queries": "positive_id"}
BLOCK = 1 << 24  # bytes read at a time
MAX_LINE = 1 << 26  # bytes: far above any passage; a file without line ends is refused, not held in memory


def line_blocks(path, block=BLOCK):
    """(number of the first line, its lines as a pyarrow string array) of each block of a UTF-8 text file, read
    once (evaluate.open_binary: decompressed; a pipe), split as Python's text mode splits (LF, CRLF, CR), a BOM
    dropped; a NUL or a byte that is no UTF-8 refused naming its line. Columnar: no Python loop over lines."""
    first, pending, bom = 1, b"", b"\xef\xbb\xbf"
    with open_binary(path, lambda: f" after line {first - 1}") as binary:
        while True:
            chunk = binary.read(block)
            data = pending + chunk
            nul = data.find(b"\0")  # checked before the cut: a file of NULs (/dev/zero) has no line end
            if nul >= 0:
                raise FormatError(path, "a NUL character; is this no text file?",
                                  line=first + _ends(data[:nul]).count(b"\n"))
            if chunk:  # the lines that end in this block; a CR last may be half of a CRLF, so it waits
                search = data[:-1] if data.endswith(b"\r") else data
                cut = max(search.rfind(b"\n"), search.rfind(b"\r")) + 1
            else:
                cut = len(data)
            body, pending = _ends(data[:cut]), data[cut:]
            if len(pending) > MAX_LINE:
                raise FormatError(path, f"a line longer than {MAX_LINE:,} bytes: no text file of lines",
                                  line=first + body.count(b"\n"))
            if first == 1 and body:  # the first line is whole: its BOM goes
                body, bom = body.removeprefix(bom), b""
            if body and not body.endswith(b"\n"):  # the last line of the file
                body += b"\n"
            lines = _checked_lines(path, first, body)
            if len(lines):
                yield first, lines
            first += len(lines)
            if not chunk:
                return


def _ends(data: bytes) -> bytes:
    """`data` with every line end an LF, as Python's text mode reads CRLF and CR."""
    return data.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in data else data


def _checked_lines(path, first, body: bytes):
    """The lines of `body` (LF-ended) as strings; a byte that is no UTF-8 refused naming its line."""
    text = pa.LargeStringArray.from_buffers(1, pa.py_buffer(pa.array([0, len(body)], pa.int64()).buffers()[1]),
                                            pa.py_buffer(body))
    try:
        text.validate(full=True)
    except pa.ArrowInvalid:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FormatError(path, "not UTF-8 text: re-encode it as UTF-8",
                              line=first + body.count(b"\n", 0, exc.start)) from None
        raise
    lines = pc.list_flatten(pc.split_pattern(text, "\n"))
    return lines.slice(0, len(lines) - 1).cast(pa.string())  # the empty string after the last LF


def _first(mask) -> int | None:
    index = pc.index(mask, True).as_py()
    return None if index < 0 else index


def _tsv_block(path, first, lines, wanted):
    """id, text, line of a block's lines whose id is in `wanted` (every line when None); an empty line skipped, a
    line without exactly one tab refused."""
    texts = lines
    numbers = pa.array(range(first, first + len(lines)), pa.int64())
    nonempty = pc.not_equal(texts, "")
    tabs = pc.count_substring(texts, "\t")
    bad = _first(pc.and_(nonempty, pc.not_equal(tabs, 1)))
    if bad is not None:
        raise FormatError(path, f"expected 2 fields (id TAB text), found {tabs[bad].as_py() + 1}", line=first + bad)
    fields = pc.split_pattern(texts.filter(nonempty), "\t", max_splits=1)
    ids, text = pc.list_element(fields, 0), pc.list_element(fields, 1)
    table = pa.table({"id": ids, "text": text, "line": numbers.filter(nonempty)})
    return table if wanted is None else table.filter(pc.is_in(ids, value_set=wanted))


JSON_FIELDS = [("_id", pa.string()), ("title", pa.string()), ("text", pa.string())]


def _json_records(path, first, lines, nonblank):
    """The block's records parsed one by one: a line that is no BEIR record refused by its number (where pyarrow,
    which reads the block at once, says only that the block is wrong)."""
    rows = {"_id": [], "title": [], "text": []}
    for i in nonblank.to_pylist():
        try:
            record = json.loads(lines[i].as_py())
        except ValueError as exc:
            raise FormatError(path, f"not JSON ({exc}); read as BEIR's JSON lines by its name .jsonl, or by a first "
                              "line that starts with {", line=first + i) from None
        if not isinstance(record, dict):
            raise FormatError(path, 'not a JSON object (a BEIR record is {"_id": ..., "text": ...})', line=first + i)
        for name, _ in JSON_FIELDS:
            value = record.get(name)
            if not (isinstance(value, str) or (value is None and name != "_id")):
                problem = "missing" if value is None else f"{json.dumps(value)[:40]} is no string"
                raise FormatError(path, f"{problem} (BEIR's {name} is a string)", line=first + i, field=name)
            if value is not None and not value.isascii():
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise FormatError(path, "an escape of half a surrogate pair (\\ud800 alone), which is no "
                                      "character", line=first + i, field=name) from None
            rows[name].append(value)
    return pa.table(rows, schema=pa.schema(JSON_FIELDS))


def _jsonl_block(path, first, lines, wanted):
    """id, title, text, line of a block's BEIR JSON lines whose _id is in `wanted` (every one when None); blank
    lines skipped."""
    nonblank = pc.indices_nonzero(pc.not_equal(pc.utf8_trim(lines, " \t"), ""))
    # the block as one text again (pyarrow's reader skips the blank lines, so record i is line nonblank[i])
    body = pc.binary_join(pa.ListArray.from_arrays(pa.array([0, len(lines)], pa.int32()), lines), "\n")[0].as_buffer()
    try:
        table = pajson.read_json(pa.BufferReader(body), read_options=pajson.ReadOptions(block_size=body.size + 1),
                                 parse_options=pajson.ParseOptions(explicit_schema=pa.schema(JSON_FIELDS),
                                                                   unexpected_field_behavior="ignore"))
        if table.num_rows != len(nonblank) or table.column("_id").null_count:
            raise pa.ArrowInvalid("not one record with an _id a line")
    except pa.ArrowInvalid:
        table = _json_records(path, first, lines, nonblank)
    table = table.select(["_id", "title", "text"]).rename_columns(["id", "title", "text"])
    table = table.append_column("line", pc.add(nonblank.cast(pa.int64()), first))
    return table if wanted is None else table.filter(pc.is_in(table.column("id"), value_set=wanted))


def _check_unique(path, table):
    """A kept id given on two lines is refused, naming both: a join would have to pick one of its texts."""
    if not table.num_rows:
        return
    lines = table.group_by("id", use_threads=False).aggregate([("line", "list")])
    repeated = lines.filter(pc.greater(pc.list_value_length(lines.column("line_list")), 1))
    if not repeated.num_rows:
        return
    found = min((sorted(numbers)[:2], key) for key, numbers in zip(repeated.column("id").to_pylist(),
                                                                   repeated.column("line_list").to_pylist()))
    (a, b), key = found
    texts = table.filter(pc.equal(table.column("id"), key)).column("text").to_pylist()
    same = "the same text" if len(set(texts)) == 1 else "different texts"
    raise FormatError(path, f"id {key!r} is on line {a} and on line {b} ({same}; {len(texts)} lines in all): a "
                      "join would have to pick one; remove the repeats", line=b, field="id")


def _is_jsonl(path, lines) -> bool | None:
    """Whether `path` is BEIR's JSON lines: by its name when it says (.jsonl or .tsv, compressed or not), else (a
    pipe has no name) when its first non-blank line starts with {; None when `lines` are all blank."""
    name = Path(str(path)).name
    for suffix in (".gz", ".bz2", ".xz"):
        name = name.removesuffix(suffix)
    if name.endswith((".jsonl", ".tsv")):
        return name.endswith(".jsonl")
    nonblank = pc.indices_nonzero(pc.not_equal(pc.utf8_trim(lines, " \t"), ""))
    return lines[nonblank[0].as_py()].as_py().lstrip(" \t").startswith("{") if len(nonblank) else None


def read_texts(path, wanted=None):
    """id/text table (and title, for BEIR JSON lines with any title) of the rows of `path` whose id is in
    `wanted` (a pyarrow array; every row when None), each id once; BEIR's JSON lines or id TAB text, as
    _is_jsonl says."""
    jsonl, parts = None, []
    for first, lines in line_blocks(path):
        if jsonl is None:
            jsonl = _is_jsonl(path, lines)
            if jsonl is None:  # blank lines only: nothing to read yet
                continue
        parts.append((_jsonl_block if jsonl else _tsv_block)(path, first, lines, wanted))
    columns = ["id", "title", "text", "line"] if jsonl else ["id", "text", "line"]
    table = pa.concat_tables(parts) if parts else pa.table({name: pa.array([], pa.int64() if name == "line" else
                                                                           pa.string()) for name in columns})
    _check_unique(path, table)
    table = table.drop_columns(["line"])
    if jsonl and not pc.any(pc.is_valid(table.column("title"))).as_py():
        table = table.drop_columns(["title"])
    return table


def text_of(ids, table, column="text"):
    index = pc.index_in(ids, value_set=table.column("id"))
    return pc.take(table.column(column), index)


def join(package, config, split, queries, collection=None):
    """The config's split with the texts of its ids appended."""
    path = Path(package) / config / f"{split}.parquet"
    if not path.is_file():
        raise FormatError(path, "no such file: --package names the release folder (the one holding MANIFEST.json), "
                          "--config and --split one of its parquet files")
    try:
        table = pq.read_table(path)
    except pa.ArrowException as exc:
        raise FormatError(path, f"cannot be read as the release's Parquet ({exc})") from None
    query_ids = pc.unique(table.column("query_id"))
    table = table.append_column("query_text", text_of(table.column("query_id"), read_texts(queries, query_ids)))
    column = PASSAGE_COLUMN.get(config)
    if column:
        ids = pc.drop_null(pc.unique(table.column(column)))
        passages = read_texts(collection, ids)
        prefix = "positive" if column == "positive_id" else "passage"
        table = table.append_column(f"{prefix}_text", text_of(table.column(column), passages))
        if "title" in passages.column_names:
            table = table.append_column(f"{prefix}_title", text_of(table.column(column), passages, "title"))
    return table


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--package", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--config", required=True,
                        choices=["qrels", "judgments", "train_queries", "dev_queries", "generated_answers"])
    parser.add_argument("--split", required=True, choices=["train", "dev"])
    parser.add_argument("--queries", required=True, help="queries.train.tsv, queries.dev.small.tsv or queries.jsonl "
                        "(gzip, bzip2 or xz too; - for stdin)")
    parser.add_argument("--collection", help="collection.tsv or corpus.jsonl (not needed for dev_queries, "
                        "generated_answers)")
    parser.add_argument("--out", required=True, help="output parquet file")
    args = parser.parse_args(argv)
    if PASSAGE_COLUMN.get(args.config) and not args.collection:
        parser.error(f"--collection is needed for {args.config}")
    if args.queries == "-" and args.collection == "-":
        parser.error("standard input can be one file only: give --queries or --collection a path")
    try:
        table = join(args.package, args.config, args.split, args.queries, args.collection)
        write_file(args.out, lambda fh: pq.write_table(table, fh), binary=True)
    except FormatError as error:
        sys.exit(str(error))
    print(f"wrote {table.num_rows:,} rows with columns {table.column_names} to {args.out}")


if __name__ == "__main__":
    main()
