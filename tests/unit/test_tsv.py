"""Bad input gets a clear error naming the file, line and field."""

import pyarrow as pa
import pytest

from irdata.errors import InputError
from irdata.msmarco_inputs import read_reference_answers
from irdata.tsv import check_ids_known, read_id_text_tsv, read_trec_qrels


def write(tmp_path, name, data: bytes):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def error_of(fn, *args):
    with pytest.raises(InputError) as info:
        fn(*args)
    return info.value


def test_reads_id_text_as_strings(tmp_path):
    path = write(tmp_path, "c.tsv", b"007\tfirst passage\n8\tsecond, with \"quotes\"\n")
    table = read_id_text_tsv(path, "pid", "text")
    assert table.column("pid").to_pylist() == ["007", "8"]
    assert table.column("text").to_pylist()[1] == 'second, with "quotes"'


@pytest.mark.parametrize("data, line, field, words", [
    (b"1\ta\n2\tb\tc\n", 2, None, "expected 2 tab-separated fields"),
    (b"1\ta\n2\n", 2, None, "found 1"),
    (b"1\ta\n2\tb\xff\n", 2, None, "UTF-8"),
    (b"1\ta\n\n3\tc\n1\td\n", 4, "id", "duplicate id '1'"),
    (b"1\ta\n\tb\n", 2, "id", "empty id"),
    (b"1\ta\n 2\tb\n", 2, "id", "whitespace"),
])
def test_malformed_lines_are_located(tmp_path, data, line, field, words):
    path = write(tmp_path, "q.tsv", data)
    err = error_of(read_id_text_tsv, path)
    assert err.path == str(path) and err.line == line and err.field == field
    assert words in str(err) and f"line {line}" in str(err)


def test_empty_and_missing_files(tmp_path):
    assert "empty" in str(error_of(read_id_text_tsv, write(tmp_path, "e.tsv", b"")))
    assert "empty" in str(error_of(read_id_text_tsv, write(tmp_path, "b.tsv", b"\n\n")))
    assert "not found" in str(error_of(read_id_text_tsv, tmp_path / "nope.tsv"))


def test_qrels_tab_or_space_separated(tmp_path):
    tabs = read_trec_qrels(write(tmp_path, "a.tsv", b"1\t0\t7\t1\n2\t0\t8\t0\n"))
    spaces = read_trec_qrels(write(tmp_path, "b.txt", b"1 0 7 1\n2 0 8 0\n"))
    assert tabs.equals(spaces)
    assert tabs.column("relevance").type == pa.int32()


def test_qrels_errors(tmp_path):
    err = error_of(read_trec_qrels, write(tmp_path, "a", b"1 0 7 1\n1 0 8 x\n"))
    assert (err.line, err.field) == (2, "relevance")
    err = error_of(read_trec_qrels, write(tmp_path, "b", b"1 0 7 1\n2 0 8 1\n1 0 7 1\n"))
    assert err.line == 3 and "twice" in str(err)


def test_id_not_in_collection(tmp_path):
    path = write(tmp_path, "q", b"1 0 7 1\n1 0 9 1\n1 0 10 1\n")
    err = error_of(check_ids_known, path, read_trec_qrels(path), "passage_id", pa.array(["7"]), "collection.tsv")
    assert (err.line, err.field) == (2, "passage_id")
    assert "'9' is not in collection.tsv (2 such row(s)" in str(err)


@pytest.mark.parametrize("data, line, field", [
    (b'{"query_id": "1", "answers": ["a"]}\n{"query_id": "2", "answers": "b"}\n', 2, "answers"),
    (b'{"query_id": "1", "answers": ["a"]}\nnot json\n', 2, None),
    (b'{"answers": ["a"]}\n', 1, "query_id"),
    (b'{"query_id": "1", "answers": []}\n{"query_id": "1", "answers": []}\n', 2, "query_id"),
    (b'{"query_id": " 9", "answers": []}\n', 1, "query_id"),
])
def test_reference_answer_errors(tmp_path, data, line, field):
    err = error_of(read_reference_answers, write(tmp_path, "a.jsonl", data))
    assert (err.line, err.field) == (line, field)
