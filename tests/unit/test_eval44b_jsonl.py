"""44b JSON-lines readers: bytes that are not UTF-8 are an InputError naming file and line; a UTF-8
byte-order mark is accepted, as the TSV readers accept one; an id that would break the collection TSV or
an id list, or a text holding a NUL, is refused naming file, line and field."""

import json
from pathlib import Path

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
    # a BOM anywhere but the start is not skipped: it is where a second file starts (two files joined with cat)
    path.write_bytes(json.dumps(REVIEW).encode() + b"\n\xef\xbb\xbf" + json.dumps(REVIEW).encode() + b"\n")
    with pytest.raises(InputError, match="line 2: a byte-order mark .* two files are joined"):
        list(iter_jsonl(path))


@pytest.mark.parametrize("load, record, fmt, field, words", [
    (load_papers, {**PAPER, "id": "1 2"}, "44b", "id", "id '1 2' holds U+0020 SPACE"),
    (load_papers, {**PAPER, "scheme": "arxiv\t"}, "44b", "scheme", "U+0009"),
    (load_papers, {**PAPER, "id": ""}, "44b", "id", "empty id"),
    (load_papers, {**PAPER, "title": "T\u0000"}, "44b", "title", "title holds a NUL character"),
    (load_papers, {**PAPER, "abstract": "A\u0000"}, "44b", "abstract", "NUL"),
    (load_papers, {"paper_id": "B1\nx", "title": "T"}, "openreview-iclr", "paper_id", "U+000A"),
    (load_reviews, {**REVIEW, "note_id": "n\u00a01"}, "44b", "note_id", "U+00A0 NO-BREAK SPACE"),
    (load_reviews, {**REVIEW, "paper": "arxiv:1\r"}, "44b", "paper", "U+000D"),
    (load_reviews, {**REVIEW, "summary": "\u0000"}, "44b", "summary", "NUL"),
    (load_reviews, {"note_id": "n 1", "paper_id": "B1x", "kind": "official_review"}, "openreview-iclr", "note_id",
     "U+0020"),
    (load_reviews, {"note_id": "n1", "paper_id": "B1x", "kind": "official_review",
                    "summary_first_paragraph": "\u0000"}, "openreview-iclr", "summary_first_paragraph", "NUL"),
])
def test_ids_and_texts_that_would_break_a_file_are_refused(tmp_path, load, record, fmt, field, words):
    path = tmp_path / "in.jsonl"
    good = PAPER if load is load_papers else REVIEW
    if fmt != "44b":
        good = {"paper_id": "A1", "title": "T"} if load is load_papers else {
            "note_id": "n0", "paper_id": "A1", "kind": "official_review"}
    path.write_text(json.dumps(good) + "\n\n" + json.dumps(record) + "\n")
    with pytest.raises(InputError) as err:
        load(path, fmt)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 3, field)
    assert words in str(err.value) and f"{path}, line 3, field {field!r}" in str(err.value)


SHARED = Path(__file__).resolve().parents[3] / "shared/data/openreview-iclr"


@pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/openreview-iclr")
def test_real_openreview_dump_passes_the_checks():
    assert len(load_papers(SHARED / "papers.jsonl", "openreview-iclr")) == 1_401
    assert len(load_reviews(SHARED / "reviews.jsonl", "openreview-iclr")) == 1_511
