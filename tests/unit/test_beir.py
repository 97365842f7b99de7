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
