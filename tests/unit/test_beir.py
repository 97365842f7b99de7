"""BEIR-format readers (irdata/beir.py): BEIR's rules, and bad input refused naming file, line and field."""

import json

import pytest

from irdata.beir import check_qrels_ids_known, positives, read_beir_corpus, read_beir_qrels, read_beir_queries
from irdata.errors import InputError


def write_lines(path, lines):
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def jsonl(path, records):
    return write_lines(path, [json.dumps(r, ensure_ascii=False) for r in records])


def test_corpus_keeps_string_ids_titles_and_file_order(tmp_path):
    path = write_lines(tmp_path / "corpus.jsonl", [
        json.dumps({"_id": "007", "title": "Bond", "text": "Shaken.", "metadata": {"url": "x"}}),
        "",  # a blank line is no record
        json.dumps({"_id": "doc-2", "text": "no title here"}),
        json.dumps({"_id": "3", "title": "Only a title", "text": ""}),
    ])
    table = read_beir_corpus(path)
    assert table.column_names == ["id", "title", "text"]
    assert table.to_pylist() == [
        {"id": "007", "title": "Bond", "text": "Shaken."},
        {"id": "doc-2", "title": "", "text": "no title here"},
        {"id": "3", "title": "Only a title", "text": ""},
    ]


def test_queries_and_qrels(tmp_path):
    queries = read_beir_queries(jsonl(tmp_path / "queries.jsonl", [{"_id": "q1", "text": "what?", "metadata": {}}]))
    assert queries.to_pylist() == [{"id": "q1", "text": "what?"}]
    qrels = read_beir_qrels(write_lines(tmp_path / "train.tsv", ["query-id\tcorpus-id\tscore", "q1\t007\t1",
                                                                  "q1\t3\t0"]))
    assert qrels.to_pylist() == [{"query_id": "q1", "passage_id": "007", "relevance": 1},
                                 {"query_id": "q1", "passage_id": "3", "relevance": 0}]
    assert positives(qrels).column("passage_id").to_pylist() == ["007"]


@pytest.mark.parametrize("lines, line, field, words", [
    (['{"_id": "a", "text": "x"}', '{"_id": "b", "text": "y"'], 2, None, "not a JSON object"),
    (['{"_id": "a", "text": "x"}', '["a", "b"]'], 2, None, "not an object"),
    (['{"_id": "a", "text": "x"}', '{"_id": 7, "text": "y"}'], 2, "_id", "not a string"),
    (['{"_id": "a", "text": "x"}', '{"title": "t", "text": "y"}'], 2, "_id", "no `_id`"),
    (['{"_id": "a", "text": "x"}', '{"_id": "a", "text": "y"}'], 2, "_id", "duplicate _id 'a'"),
    (['{"_id": "a", "text": "x"}', '{"_id": "b c", "text": "y"}'], 2, "_id", "U+0020 SPACE"),
    (['{"_id": "a", "text": "x"}', '{"_id": "b", "title": " ", "text": ""}'], 2, "text", "empty title and text"),
    (['{"_id": "a", "text": "x\\u0000y"}'], 1, "text", "NUL"),
    (['{"_id": "a", "text": "x"}', '', '{"_id": "b", "text": 3}'], 3, "text", "not a string"),
])
def test_a_bad_corpus_line_is_named(tmp_path, lines, line, field, words):
    path = write_lines(tmp_path / "corpus.jsonl", lines)
    with pytest.raises(InputError) as error:
        read_beir_corpus(path)
    assert (error.value.path, error.value.line, error.value.field) == (str(path), line, field)
    assert words in error.value.problem


@pytest.mark.parametrize("lines, line, field, words", [
    (["q1\t007\t1"], 1, None, "header"),
    (["query-id\tcorpus-id\tscore", "q1\t007\t1", "q1\t3"], 3, None, "expected 3 tab-separated fields"),
    (["query-id\tcorpus-id\tscore", "q1\t007\thigh"], 2, "score", "not an integer"),
    (["query-id\tcorpus-id\tscore", "q1\t007\t1", "q1\t007\t2"], 3, "corpus-id", "appears twice"),
])
def test_a_bad_qrels_line_is_named(tmp_path, lines, line, field, words):
    path = write_lines(tmp_path / "test.tsv", lines)
    with pytest.raises(InputError) as error:
        read_beir_qrels(path)
    assert (error.value.line, error.value.field) == (line, field)
    assert words in error.value.problem


def test_a_qrels_id_missing_from_the_corpus_or_the_queries_is_named(tmp_path):
    corpus = read_beir_corpus(jsonl(tmp_path / "corpus.jsonl", [{"_id": "d1", "text": "x"}]))
    queries = read_beir_queries(jsonl(tmp_path / "queries.jsonl", [{"_id": "q1", "text": "y"}]))
    path = write_lines(tmp_path / "train.tsv", ["query-id\tcorpus-id\tscore", "q1\td1\t1", "q1\td9\t1"])
    with pytest.raises(InputError) as error:
        check_qrels_ids_known(path, read_beir_qrels(path), corpus, queries)
    assert (error.value.line, error.value.field) == (3, "corpus-id")
    assert "'d9' is not in corpus.jsonl" in str(error.value)
    path = write_lines(tmp_path / "dev.tsv", ["query-id\tcorpus-id\tscore", "q2\td1\t1"])
    with pytest.raises(InputError) as error:
        check_qrels_ids_known(path, read_beir_qrels(path), corpus, queries)
    assert (error.value.line, error.value.field) == (2, "query-id")


@pytest.mark.parametrize("data, line, field, words", [
    # the text under another key: BEIR's loaders would read a title-only document
    (b'{"_id": "a", "title": "t", "text": "x"}\n{"_id": "b", "title": "t", "body": "y"}\n', 2, "text",
     "no `text` (the record's keys: _id, title, body)"),
    (b'{"_id": "a", "text": null}\n', 1, "text", "`text` is null"),
    # a pretty-printed record spreads over lines; two records on one line
    (b'{"_id": "a", "text": "x"}\n{"_id": "b",\n "text": "y"}\n', 2, None, "one whole record a line"),
    (b'{"_id": "a", "text": "x"} {"_id": "b", "text": "y"}\n', 1, None, "more than one JSON value"),
    (b'{"_id": "a", "text": "x"}\r{"_id": "b", "text": "y"}\n', 1, None, "more than one JSON value"),
    # invalid UTF-8 inside a text, a lone surrogate escape, a key given twice
    (b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": "caf\xe9"}\n', 2, "text", "not valid UTF-8"),
    (b'{"_id": "a", "text": "x"}\n{"_id": "b", "text": "half \\ud800 pair"}\n', 2, "text", "lone surrogate"),
    (b'{"_id": "a", "text": "x"}\n{"_id": "b", "_id": "c", "text": "y"}\n', 2, "_id", "twice"),
    # whitespace only: no record at all, not a qrels problem later
    (b'   \n \t \n', None, None, "no record"),
    # a whitespace-only line is no record: the line numbers after it stay right
    (b'{"_id": "a", "text": "x"}\n   \n{"_id": "b c", "text": "y"}\n', 3, "_id", "U+0020 SPACE"),
])
def test_a_corpus_that_beir_would_misread_is_refused_by_line(tmp_path, data, line, field, words):
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError) as error:
        read_beir_corpus(path)
    assert (error.value.path, error.value.line, error.value.field) == (str(path), line, field)
    assert words in error.value.problem


def test_a_query_without_its_text_key_is_refused(tmp_path):
    path = jsonl(tmp_path / "queries.jsonl", [{"_id": "q1", "text": "a"}, {"_id": "q2", "query": "b"}])
    with pytest.raises(InputError) as error:
        read_beir_queries(path)
    assert (error.value.line, error.value.field) == (2, "text") and "keys: _id, query" in str(error.value)


@pytest.mark.parametrize("lines, line, field, words", [
    (["query-id\tcorpus-id\tscore"], 1, None, "no row after its header line"),
    (["query-id\tcorpus-id\tscore", "", ""], 1, None, "no row after its header line"),
    # an id error names its own line, not the one before it
    (["query-id\tcorpus-id\tscore", "q1\td1\t1", "q\x012\td1\t1"], 3, "query-id", "U+0001"),
    (["", "query-id\tcorpus-id\tscore", "q1\t\t1"], 3, "corpus-id", "empty corpus-id"),
])
def test_a_qrels_file_without_rows_or_with_a_bad_id_is_named(tmp_path, lines, line, field, words):
    path = write_lines(tmp_path / "test.tsv", lines)
    with pytest.raises(InputError) as error:
        read_beir_qrels(path)
    assert (error.value.line, error.value.field) == (line, field)
    assert words in error.value.problem


def test_a_qrels_header_after_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "test.tsv"
    path.write_bytes(b"\xef\xbb\xbfquery-id\tcorpus-id\tscore\r\nq1\td1\t1\r\n")
    assert read_beir_qrels(path).to_pylist() == [{"query_id": "q1", "passage_id": "d1", "relevance": 1}]


def test_a_gzip_folder_file_reads_as_its_plain_twin(tmp_path):
    """A corpus.jsonl that holds gzip (compressed in place, keeping BEIR's names) reads by its content; its errors
    name it and the line zcat shows."""
    import gzip

    records = [{"_id": "d1", "title": "T", "text": "x"}, {"_id": "d2", "text": "y"}]
    plain = read_beir_corpus(jsonl(tmp_path / "plain.jsonl", records))
    path = tmp_path / "corpus.jsonl"
    path.write_bytes(gzip.compress((tmp_path / "plain.jsonl").read_bytes()))
    assert read_beir_corpus(path).equals(plain)
    path.write_bytes(gzip.compress(b'{"_id": "d1", "text": "x"}\n\n{"_id": "d1", "text": "y"}\n'))
    with pytest.raises(InputError) as error:
        read_beir_corpus(path)
    assert (error.value.path, error.value.line, error.value.field) == (str(path), 3, "_id")
    qrels = tmp_path / "test.tsv"
    qrels.write_bytes(gzip.compress(b"query-id\tcorpus-id\tscore\nq1\td1\t1\n"))
    assert read_beir_qrels(qrels).to_pylist() == [{"query_id": "q1", "passage_id": "d1", "relevance": 1}]


@pytest.mark.parametrize("reader, data, line", [
    (read_beir_corpus, b'{"_id": "a", "text": "x"}\n\xef\xbb\xbf{"_id": "b", "text": "y"}\n', 2),
    (read_beir_queries, b'{"_id": "a", "text": "x"}\n\n\xef\xbb\xbf{"_id": "b", "text": "y"}\n', 3),
    (read_beir_qrels, b"query-id\tcorpus-id\tscore\nq1\td1\t1\nquery-id\tcorpus-id\tscore\nq2\td1\t1\n", 3),
    (read_beir_qrels, b"query-id\tcorpus-id\tscore\nq1\td1\t1\n\xef\xbb\xbfquery-id\tcorpus-id\tscore\n", 3),
])
def test_two_files_joined_with_cat_are_refused_where_the_second_starts(tmp_path, reader, data, line):
    path = tmp_path / "joined"
    path.write_bytes(data)
    with pytest.raises(InputError) as error:
        reader(path)
    assert error.value.line == line and "two files are joined" in error.value.problem


def test_a_query_without_a_word_is_refused(tmp_path):
    """Its checked `qid<TAB>text` line would be refused by the TSV reader the dedup reads it with."""
    path = jsonl(tmp_path / "queries.jsonl", [{"_id": "q1", "text": "a"}, {"_id": "q2", "text": "?!"}])
    with pytest.raises(InputError) as error:
        read_beir_queries(path)
    assert (error.value.line, error.value.field) == (2, "text") and "has no word" in error.value.problem
