"""44b JSON-lines readers: bytes that are not UTF-8 are an InputError naming file and line; a UTF-8
byte-order mark is accepted, as the TSV readers accept one."""

import json

import pytest

from irdata.errors import InputError
from irdata.eval44b.inputs import load_papers, load_reviews
from irdata.json_files import iter_jsonl

PAPER = {"scheme": "arxiv", "id": "1", "url": "https://arxiv.org/abs/1", "title": "T", "abstract": "A", "s2_id": None}
REVIEW = {"note_id": "n1", "note_url": "u", "kind": "official_review", "paper": "arxiv:1", "summary": "s"}


def test_a_bom_is_skipped(tmp_path):
    path = tmp_path / "papers.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(PAPER).encode() + b"\n")
    assert [p["id"] for p in load_papers(path)] == ["1"]
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(REVIEW).encode() + b"\r\n\r\n")
    assert [r["note_id"] for r in load_reviews(path)] == ["n1"]


def test_bytes_that_are_not_utf8_name_the_file_and_line(tmp_path):
    path = tmp_path / "reviews.jsonl"
    bad = (
        json.dumps({**REVIEW, "note_id": "n2", "summary": "caf\u00e9"}, ensure_ascii=False)
        .encode("utf-8")
        .replace(b"\xc3\xa9", b"\xe9")
    )
    path.write_bytes(json.dumps(REVIEW).encode() + b"\n\n" + bad + b"\n")
    with pytest.raises(InputError) as err:
        load_reviews(path)
    assert err.value.path == str(path) and err.value.line == 3 and "not valid UTF-8" in str(err.value)
    # a BOM anywhere but the start is not skipped: it is a character inside the JSON text
    path.write_bytes(json.dumps(REVIEW).encode() + b"\n\xef\xbb\xbf" + json.dumps(REVIEW).encode() + b"\n")
    with pytest.raises(InputError, match="line 2: not valid JSON"):
        list(iter_jsonl(path))
