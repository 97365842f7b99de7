"""JSON and JSON lines in, naming the file and line of what is wrong: the readers of what irdata.atomic
writes (json_text, write_json_atomic, write_jsonl_atomic), and of the JSON lines inputs."""

from __future__ import annotations

import json
from pathlib import Path

from .errors import InputError

BOM = b"\xef\xbb\xbf"


def read_json(path) -> dict:
    """A JSON object from `path`; a missing file, bad JSON or another value is an InputError."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found")
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg}", line=exc.lineno) from exc
    if not isinstance(value, dict):
        raise InputError(path, "expected a JSON object")
    return value


def iter_jsonl(path):
    """Yield (line number, record) for every non-blank line; a bad line is an InputError.

    A UTF-8 byte-order mark at the start is skipped (as the TSV readers do); bytes that are not
    UTF-8 are an InputError naming the line.
    """
    path = Path(path)
    if not path.exists():
        raise InputError(path, "file not found; check the path in config.yaml")
    with open(path, "rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if number == 1 and raw.startswith(BOM):
                raw = raw[len(BOM) :]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    path,
                    f"not valid UTF-8 (byte {exc.start + 1} of the line); re-encode the file as UTF-8",
                    line=number,
                ) from exc
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, f"not valid JSON: {exc.msg}", line=number) from exc
            if not isinstance(record, dict):
                raise InputError(path, "expected a JSON object", line=number)
            yield number, record


def read_jsonl(path) -> list[dict]:
    return [record for _, record in iter_jsonl(path)]
