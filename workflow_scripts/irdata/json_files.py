"""JSON and JSON lines in, naming the file and line of what is wrong: the readers of what irdata.atomic
writes (json_text, write_json_atomic, write_jsonl_atomic), and of the JSON lines inputs, plain or compressed
(irdata.plain_bytes), each read once."""

from __future__ import annotations

import json

from .errors import InputError
from .plain_bytes import open_plain
from .tsv import JOINED_BOM


def read_json(path) -> dict:
    """A JSON object from `path`; a missing file, bad JSON or another value is an InputError."""
    with open_plain(path) as fh:
        data = fh.read()
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(path, "not valid UTF-8; re-encode the file as UTF-8",
                         line=data.count(b"\n", 0, exc.start) + 1) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg}", line=exc.lineno) from exc
    if not isinstance(value, dict):
        raise InputError(path, "expected a JSON object")
    return value


class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs) -> dict:
    """A JSON object's pairs as a dict; a key given twice is refused (json.loads would keep the last one silently,
    pyarrow's reader refuses it)."""
    record = {}
    for key, value in pairs:
        if key in record:
            raise _DuplicateKey(key)
        record[key] = value
    return record


def json_line_record(path, number: int, raw: bytes) -> dict | None:
    """The JSON object on line `number` (its bytes `raw`) of a JSON-lines file, None for a line of whitespace only.

    An InputError names the line for what JSON-lines readers read otherwise or not at all: bytes that are not
    UTF-8 (a byte-order mark on line 1 is skipped), a record spread over several lines (pretty-printed) or two on
    one line, a value that is not an object, a key given twice, a lone surrogate escape (half a UTF-16 pair, which
    no UTF-8 text can hold), a byte-order mark at the start of a later line (two files joined with cat)."""
    if number > 1 and raw.startswith(b"\xef\xbb\xbf"):
        raise InputError(path, JOINED_BOM, line=number)
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"not valid UTF-8 (byte {exc.start + 1} of the line); re-encode the file as UTF-8",
                         line=number) from None
    text = text.strip(" \t\r\n")
    if not text:
        return None
    try:
        record = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise InputError(path, f"the key `{exc.args[0]}` appears twice in the record; name each field once",
                         line=number, field=exc.args[0]) from None
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            problem = (f"more than one JSON value on the line (the second from character {exc.pos + 1}); JSON lines "
                       "hold one record a line")
        elif exc.pos >= len(text):
            problem = (f"not valid JSON, so not a JSON object: the line ends inside it ({exc.msg}); JSON lines hold "
                       "one whole record a line (a pretty-printed record spreads over several)")
        else:
            problem = f"not valid JSON, so not a JSON object: {exc.msg} (character {exc.colno})"
        raise InputError(path, problem, line=number) from None
    if not isinstance(record, dict):
        raise InputError(path, f"a JSON {type(record).__name__}, not an object; JSON lines hold one object a line",
                         line=number)
    for key, value in record.items():
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(path, f"a lone surrogate {exc.object[exc.start]!r}: an escape for half a UTF-16 pair, "
                             "which no UTF-8 text holds; write the whole pair or the character itself", line=number,
                             field=key) from None
    return record


def jsonl_records(path, lines):
    """Yield (line number, record) for every non-blank line of the (number, bytes) `lines` of the JSON-lines file
    `path`; a bad line is an InputError (json_line_record)."""
    for number, raw in lines:
        record = json_line_record(path, number, raw)
        if record is not None:
            yield number, record


def iter_jsonl(path):
    """Yield (line number, record) for every non-blank line; a bad line is an InputError (json_line_record)."""
    with open_plain(path) as fh:
        yield from jsonl_records(path, enumerate(fh, start=1))


def read_jsonl(path) -> list[dict]:
    return [record for _, record in iter_jsonl(path)]
