"""Reference answers: the dev queries' answers, in every format MS MARCO ships them in (read_reference_answers), and
the JSON lines the input checks write them as (irdata/sources/), which the grading reads."""

from __future__ import annotations

import itertools
import json

from .errors import InputError
from .json_files import jsonl_records
from .plain_bytes import open_plain

BOM = b"\xef\xbb\xbf"
# MS MARCO QnA's answer for a query without one
NO_ANSWER = "No Answer Present."
ANSWER_ID_KEYS = ("query_id", "query_id_v1_1")


def _answer_id(path, value, line=None, row=None) -> str:
    where = f"row {row!r}: " if row is not None else ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value or value != value.strip():
        raise InputError(path, f"{where}query_id must be a non-empty string or an integer, got {value!r}", line=line,
                         field="query_id")
    return value


def _answer_list(path, value, line=None, row=None) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        where = f"row {row!r}: " if row is not None else ""
        raise InputError(path, f"{where}answers must be a list of strings", line=line, field="answers")
    return [a for a in value if a != NO_ANSWER]


def _record_answers(path, record, line=None) -> tuple[str, str, list[str]]:
    if not isinstance(record, dict):
        raise InputError(path, "expected a JSON object", line=line)
    key = next((k for k in ANSWER_ID_KEYS if k in record), None)
    if key is None:
        raise InputError(path, f"missing query id (one of {', '.join(ANSWER_ID_KEYS)})", line=line, field="query_id")
    return key, _answer_id(path, record[key], line), _answer_list(path, record.get("answers"), line)


def _columnar_answers(path, obj: dict):
    """MS MARCO QnA v2.1 JSON: {"query_id": {row: id}, "answers": {row: [...]}, ...}."""
    ids, answers = obj.get("query_id"), obj.get("answers")
    if not isinstance(ids, dict):
        raise InputError(path, "expected query_id keyed by row, as in the MS MARCO QnA v2.1 JSON", field="query_id")
    for row, qid in ids.items():
        if row not in answers:
            raise InputError(path, f"row {row!r} has a query_id but no answers", field="answers")
        try:
            json.dumps([qid, answers[row]], ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise InputError(path, f"row {row!r}: a lone surrogate escape (half a UTF-16 pair, which no UTF-8 text "
                             "holds); write the whole pair", field="answers") from None
        yield None, "query_id", _answer_id(path, qid, row=row), _answer_list(path, answers[row], row=row)


def _answer_records(path, fh):
    """(line, id key, query id, answers) of every answer in the open file `fh`, read once: JSON lines when its first
    non-blank line is a record, the QnA v2.1 JSON when it is the whole object on one line, or `{` alone, which
    opens it pretty-printed."""
    lines = enumerate(fh, start=1)
    read = []  # the lines read up to the first non-blank one, which a pretty-printed file is parsed from
    for number, raw in lines:
        read.append(raw.removeprefix(BOM) if number == 1 else raw)
        if read[-1].strip():
            break
    else:
        raise InputError(path, "file is empty; expected at least one record")
    first = read[-1]
    try:
        head = json.loads(first.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        head = None
    if isinstance(head, dict) and isinstance(head.get("answers"), dict):
        return _columnar_answers(path, head)
    if head is not None or first.strip() != b"{":  # the JSON lines reader names a bad line
        return ((number, *_record_answers(path, record, number))
                for number, record in jsonl_records(path, itertools.chain([(len(read), first)], lines)))
    data = b"".join(read) + fh.read()
    try:  # a pretty-printed QnA v2.1 JSON spans many lines
        whole = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InputError(path, "not valid UTF-8; re-encode the file as UTF-8",
                         line=data.count(b"\n", 0, exc.start) + 1) from None
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not valid JSON: {exc.msg} (character {exc.colno})", line=exc.lineno) from None
    if isinstance(whole, dict) and isinstance(whole.get("answers"), dict):
        return _columnar_answers(path, whole)
    raise InputError(path, "neither JSON lines of answer records nor the MS MARCO QnA v2.1 JSON")


def read_answers(path) -> tuple[dict[str, list[str]], set[str]]:
    """The answers and the id keys the file used (query_id, query_id_v1_1); the file, plain or compressed, is read
    once."""
    answers: dict[str, list[str]] = {}
    keys = set()
    with open_plain(path) as fh:
        for line, key, qid, values in _answer_records(path, fh):
            if qid in answers:
                raise InputError(path, f"duplicate query_id {qid!r}", line=line, field="query_id")
            answers[qid] = values
            keys.add(key)
    if not answers:
        raise InputError(path, "file is empty; expected at least one record")
    return answers, keys


def read_reference_answers(path) -> dict[str, list[str]]:
    """Read dev reference answers, {query_id: [answer, ...]}, from any of the formats MS MARCO uses:

    - JSON lines, one record a line: `{"query_id": ..., "answers": [...]}`, with `query_id_v1_1` in
      place of `query_id` (MS MARCO QnA v1.1 reference answers), or whole QnA v1.1 records (their
      other fields are ignored);
    - the MS MARCO QnA v2.1 JSON (dev_v2.1.json): one object whose fields are keyed by row,
      `{"query_id": {"0": 1102432, ...}, "answers": {"0": [...], ...}, ...}`.

    Integer ids become strings; "No Answer Present." (QnA's marker of an unanswered query) is no
    answer. Queries outside the dev set are kept here: the MS MARCO input check ignores and counts them
    (irdata/sources/msmarco.py).
    """
    return read_answers(path)[0]
