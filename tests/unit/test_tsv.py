"""Bad input gets a clear error naming the file, line and field."""

import pyarrow as pa
import pytest

from irdata import tsv
from irdata.errors import InputError
from irdata.grade_scale import GRADES
from irdata.reference_answers import read_reference_answers
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
    # what would break a file written from the input: an id TREC or TSV lines would split
    (b"1\ta\n\n1 2\tb\n", 3, "id", "id '1 2' holds U+0020 SPACE (character 2)"),
    (b"1\ta\n1\xc2\xa02\tb\n", 2, "id", "U+00A0 NO-BREAK SPACE"),
    (b"1\ta\n12\x0b\tb\n", 2, "id", "U+000B (character 3)"),
    (b"1\ta\n1\x7f\tb\n", 2, "id", "U+007F (character 2)"),
    ("\u00e91\ta\n\u00e92\u2003\tb\n".encode(), 2, "id", "U+2003 EM SPACE (character 3)"),
    (b"1\ta\n1\x002\tb\n", 2, "id", "a NUL byte (byte 2 of the line)"),
    (b"1\ta\n2\tb\x00c\n", 2, "text", "a NUL byte (byte 4 of the line)"),
    (b"1\ta\n2\tb\x00c\rd\n", 2, "text", "a NUL byte (byte 4 of the line)"),
    (b"1\ta\n2\tb\rc\x00d\n", 2, "text", "a carriage return (byte 4 of the line)"),
    # a carriage return that is not a CRLF line end, which pyarrow takes for one (168 rows from 167 lines)
    (b"1\ta\n2\tb\rc\n3\td\n", 2, "text", "a carriage return (byte 4 of the line)"),
    (b"1\ta\r\n2\tb\rc\td\r\n", 2, "text", "a carriage return"),
    (b"1\ta\r\n2\r\tb\r\n", 2, "id", "a carriage return (byte 2 of the line)"),
    (b"1\ta\n2\tb\r", 2, "text", "does not end the line as CRLF"),
    (b"1\ta\n2\tb\r\r\n", 2, "text", "a carriage return (byte 4 of the line)"),
])
def test_malformed_lines_are_located(tmp_path, data, line, field, words):
    path = write(tmp_path, "q.tsv", data)
    err = error_of(read_id_text_tsv, path)
    assert err.path == str(path) and err.line == line and err.field == field
    assert words in str(err) and f"{path}, line {line}" in str(err)
    if field:
        assert f"field {field!r}" in str(err)


def test_crlf_line_ends_and_a_bom_are_read(tmp_path):
    lf = read_id_text_tsv(write(tmp_path, "lf.tsv", b"1\ta b\n2\tc\n"))
    assert read_id_text_tsv(write(tmp_path, "crlf.tsv", b"\xef\xbb\xbf1\ta b\r\n\r\n2\tc\r\n")).equals(lf)


def test_ids_beyond_ascii_are_ids(tmp_path):
    path = write(tmp_path, "q.tsv", "caf\u00e9\ta\n\u6771\u4eac-1\tb \u00a0c\n".encode())
    assert read_id_text_tsv(path).column("id").to_pylist() == ["caf\u00e9", "\u6771\u4eac-1"]


@pytest.mark.parametrize("data, offset", [
    (b"1\ta\r\n2\tb\r\n", None),   # a CRLF across the chunk boundary
    (b"1\tab\r2\tb\n", 4),
    (b"1\ta\r\r\n2\tb\n", 3),
    (b"1\ta\n2\tb\r", 7),
])
def test_lone_carriage_returns_are_found_across_scan_chunks(monkeypatch, data, offset):
    for chunk in (1, 2, 3, 4, 5, 1 << 20):
        monkeypatch.setattr(tsv, "_SCAN_CHUNK", chunk)
        assert tsv._first_lone_cr(data, len(data)) == offset, chunk
        assert tsv._lines_before(data, len(data)) == data.count(b"\n"), chunk


def test_a_long_line_is_read_with_a_larger_block_and_refused_past_the_last(tmp_path, monkeypatch):
    path = write(tmp_path, "c.tsv", b"1\ta\n2\t" + b"x" * 3_000_000 + b"\n3\tc\n")
    assert read_id_text_tsv(path).column("text").to_pylist()[1] == "x" * 3_000_000
    monkeypatch.setattr(tsv, "BLOCK_SIZES", (1 << 16, 1 << 20))
    err = error_of(read_id_text_tsv, path)
    assert (err.path, err.line, err.field) == (str(path), 2, None) and "a line longer than 1 MiB" in str(err)


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


@pytest.mark.parametrize("data, line, field, words", [
    (b"1\t0\t7\t1\n1\x01\t0\t8\t1\n", 2, "query_id", "query_id '1\\x01' holds U+0001 (character 2)"),
    (b"1\t0\t7\t1\n1\t0\x1f0\t8\t1\n", 2, "iteration", "iteration '0\\x1f0' holds U+001F"),
    (b"1\t0\t7\t1\n1\t0\t8\x00\t1\n", 2, "passage_id", "a NUL byte (byte 6 of the line)"),
    (b"1 0 7 1\n1 0 8\xe3\x80\x809 1\n", 2, "passage_id", "U+3000 IDEOGRAPHIC SPACE"),
    (b"1 0 7 1\n2 0 8 1\r3 0 9 1\n", 2, "relevance", "a carriage return (byte 8 of the line)"),
    (b"1 0 7 1\n\n1 0 8 12345678901\n", 3, "relevance", "'12345678901' is not an integer of at most 9 digits"),
])
def test_qrels_that_would_break_a_trec_file_are_refused(tmp_path, data, line, field, words):
    path = write(tmp_path, "q.qrels", data)
    err = error_of(read_trec_qrels, path)
    assert (err.path, err.line, err.field) == (str(path), line, field)
    assert words in str(err) and f"{path}, line {line}, field {field!r}" in str(err)


def test_graded_qrels_hold_grades_only(tmp_path):
    """The audit's qrels hold human grades 0-3; train/dev qrels any integer relevance (MS MARCO's are 1,
    TREC DL's 0-3: >= 1 is a positive)."""
    path = write(tmp_path, "audit.qrels", b"1 0 7 3\n1 0 8 0\n\n2 0 9 4\n2 0 10 -1\n")
    assert read_trec_qrels(path).column("relevance").to_pylist() == [3, 0, 4, -1]
    err = error_of(read_trec_qrels, path, GRADES)
    assert (err.path, err.line, err.field) == (str(path), 4, "relevance")
    assert f"{path}, line 4, field 'relevance': relevance 4 is not a grade; grades are 0, 1, 2, 3" == str(err)
    from irdata.annotate.audit import audit_pairs
    err = error_of(audit_pairs, path, None, None, None, 0, "error")
    assert (err.path, err.line, err.field) == (str(path), 4, "relevance")


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


@pytest.mark.parametrize("data, rows, header", [
    (b"pid\ttext\n1\tfirst passage\n2\tsecond\n", [("1", "first passage"), ("2", "second")], 1),
    (b"\xef\xbb\xbfQuery_ID\tQuery\r\n7\twhat?\r\n", [("7", "what?")], 1),
    (b"\n_id\tbody\n\n3\tx\n", [("3", "x")], 1),
    # a first record that only looks like a header is a record: "id" with a text of other words
    (b"id\tthe id of a thing\n2\tx\n", [("id", "the id of a thing"), ("2", "x")], 0),
])
def test_a_header_line_is_skipped_and_counted(tmp_path, data, rows, header):
    path = write(tmp_path, "c.tsv", data)
    table = read_id_text_tsv(path)
    assert list(zip(*(table.column(c).to_pylist() for c in ("id", "text")))) == rows
    assert tsv.header_lines(path) == header


def test_after_a_header_line_errors_name_their_own_line(tmp_path):
    err = error_of(read_id_text_tsv, write(tmp_path, "c.tsv", b"pid\ttext\n1\ta\n1\tb\n"))
    assert (err.line, err.field) == (3, "id") and "duplicate id '1'" in err.problem
    err = error_of(read_id_text_tsv, write(tmp_path, "d.tsv", b"pid\ttext\n1\ta\n2 x\tb\n"))
    assert (err.line, err.field) == (3, "id")
    err = error_of(read_id_text_tsv, write(tmp_path, "e.tsv", b"pid\ttext\n\n"))
    assert err.line == 1 and "no row after its header line" in err.problem
    qrels = write(tmp_path, "q.qrels", b"qid\tQ0\tdocid\trel\n1\t0\t7\t1\n1\t0\t9\t1\n")
    assert read_trec_qrels(qrels).column("passage_id").to_pylist() == ["7", "9"]
    err = error_of(check_ids_known, qrels, read_trec_qrels(qrels), "passage_id", pa.array(["7"]), "collection.tsv")
    assert (err.line, err.field) == (3, "passage_id")
    err = error_of(read_trec_qrels, write(tmp_path, "r.qrels", b"query_id iteration passage_id relevance\n1 0 7 x\n"))
    assert (err.line, err.field) == (2, "relevance")


def test_a_line_with_too_many_fields_that_is_not_utf8_is_named_and_prints_nothing_else(tmp_path):
    """pyarrow cannot hand such a row to the reader's handler and prints the decode error as "Exception ignored";
    the reader names the line, and the log holds nothing else."""
    import subprocess
    import sys

    path = write(tmp_path, "c.tsv", b"1\ta\n2\tb\t\xff\n3\tc\n")
    code = "import sys; from irdata.tsv import read_id_text_tsv; read_id_text_tsv(sys.argv[1])"
    proc = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                          env={"PYTHONPATH": ":".join(sys.path)})
    assert proc.returncode == 1 and "Exception ignored" not in proc.stderr
    assert proc.stderr.strip().endswith(f"InputError: {path}, line 2: not valid UTF-8; re-encode the file as UTF-8")


# -- files read by their content, as the field's tools read them (issue 42) -------------------------------------


def test_a_gzip_file_reads_as_its_plain_twin_whatever_its_name(tmp_path):
    """MS MARCO and TREC DL ship gzip (msmarco-test2019-queries.tsv.gz): read by content, as pandas and ir_datasets
    read it; a `.gz` name on plain text is no reason to refuse it."""
    import gzip

    text = b"pid\ttext\n1\tfirst passage\n2\tsecond\n"
    qrels = b"1 0 7 1\n2 0 8 0\n"
    plain = read_id_text_tsv(write(tmp_path, "c.tsv", text))
    for name, data in (("c.tsv.gz", gzip.compress(text)), ("c2.tsv", gzip.compress(text)), ("c3.gz", text)):
        path = write(tmp_path, name, data)
        assert read_id_text_tsv(path).equals(plain)
        assert tsv.header_lines(path) == 1
    plain = read_trec_qrels(write(tmp_path, "q.txt", qrels))
    assert read_trec_qrels(write(tmp_path, "q.txt.gz", gzip.compress(qrels))).equals(plain)
    assert read_trec_qrels(write(tmp_path, "q2.txt", gzip.compress(qrels))).equals(plain)


def test_an_error_in_a_gzip_file_names_the_file_and_the_line_zcat_shows(tmp_path):
    import gzip

    path = write(tmp_path, "c.tsv.gz", gzip.compress(b"1\ta\n\n2\tb\n1\tc\n"))
    err = error_of(read_id_text_tsv, path)
    assert (err.path, err.line, err.field) == (str(path), 4, "id") and "duplicate id '1'" in err.problem
    path = write(tmp_path, "q.txt.gz", gzip.compress(b"1 0 7 1\n1 0 9 1\n1 0 10 1\n"))
    err = error_of(check_ids_known, path, read_trec_qrels(path), "passage_id", pa.array(["7"]), "collection.tsv")
    assert (err.path, err.line, err.field) == (str(path), 2, "passage_id")


def test_a_pipe_is_read_once_and_its_errors_name_it(tmp_path):
    """Process substitution (`<(zcat queries.tsv.gz)`) hands a /dev/fd path that reads once: read as the file, an
    error names the pipe and its line; what needs the file again (a line after the read, the header count) says
    so rather than read nothing."""
    import gzip
    import os

    def pipe(data):
        read_end, write_end = os.pipe()
        os.write(write_end, data)
        os.close(write_end)
        return f"/dev/fd/{read_end}"

    text = b"qid\tquery_text\n1\twhat is a pipe\n2\thow\n"
    assert read_id_text_tsv(pipe(gzip.compress(text))).equals(read_id_text_tsv(write(tmp_path, "q.tsv", text)))
    path = pipe(b"1\ta\n2\tb\n2\tc\n")
    err = error_of(read_id_text_tsv, path)
    assert (err.path, err.line, err.field) == (path, 3, "id")
    path = pipe(b"1 0 7 1\n1 0 9 1\n")
    qrels = read_trec_qrels(path)
    err = error_of(check_ids_known, path, qrels, "passage_id", pa.array(["7"]), "collection.tsv")
    assert (err.path, err.line, err.field) == (path, None, "passage_id") and "'9' is not in" in err.problem
    assert "a pipe or a device" in error_of(tsv.header_lines, path).problem


@pytest.mark.parametrize("data", [
    b"1 0 7 1 \n2 0 8 0\t\n",            # a trailing space or tab
    b"1  0   7 1\n\t2\t0\t8 \t0\n",        # runs of spaces, a leading tab, spaces and tabs mixed
    b"1 0 7 1\n   \n\t\n2 0 8 0\r\n",      # lines of whitespace only, CRLF
    b"1\x0b0 7\x0c1\n2 0 8 0\n",            # vertical tab and form feed: whitespace to trec_eval and Python
])
def test_qrels_are_read_as_trec_eval_and_ir_measures_read_them(tmp_path, data):
    import ir_measures

    path = write(tmp_path, "q.txt", data)
    table = read_trec_qrels(path)
    theirs = [(q.query_id, q.iteration, q.doc_id, q.relevance) for q in ir_measures.read_trec_qrels(str(path))]
    assert list(zip(*(table.column(c).to_pylist() for c in tsv.QRELS_COLUMNS))) == theirs


def test_a_qrels_line_of_other_fields_is_named(tmp_path):
    err = error_of(read_trec_qrels, write(tmp_path, "q.txt", b"1 0 7 1\n\n1 0 8\n"))
    assert err.line == 3 and "expected 4 whitespace-separated fields" in err.problem and "found 3" in err.problem


@pytest.mark.parametrize("data, rows", [
    (b"qid\tquery_text\n7\twhat?\n", [("7", "what?")]),
    (b"id\tpassage_text\r\n7\tx\r\n", [("7", "x")]),
    (b"DocID\tPassage \n7\tx\n", [("7", "x")]),
    (b"query_id\tQuery-Text\n7\tx\n", [("7", "x")]),
])
def test_a_header_line_of_other_column_names_is_skipped(tmp_path, data, rows):
    """A first line whose first field names an id column (HEADER_WORDS) and whose last is one identifier-like word
    is a header line: no record has such an id and a one-word text at once by accident."""
    path = write(tmp_path, "q.tsv", data)
    table = read_id_text_tsv(path)
    assert list(zip(table.column("id").to_pylist(), table.column("text").to_pylist())) == rows
    assert tsv.header_lines(path) == 1


def test_qrels_header_lines_of_other_names_are_skipped(tmp_path):
    for header in (b"qid 0 docno rel", b"topic\titer\tdocid\tjudgment", b"query-id corpus-id score"):
        path = write(tmp_path, "q.txt", header + b"\n1 0 7 1\n")
        assert read_trec_qrels(path).column("passage_id").to_pylist() == ["7"]
        assert tsv.header_lines(path, trec=True) == 1


@pytest.mark.parametrize("name, reader, data, line", [
    ("q.tsv", read_id_text_tsv, b"qid\tquery_text\n1\ta\nqid\tquery_text\n2\tb\n", 3),
    ("q.tsv", read_id_text_tsv, b"1\ta\n\nid\ttext\n2\tb\n", 3),
    ("q.txt", read_trec_qrels, b"1 0 7 1\nqid Q0 docid rel\n2 0 8 1\n", 2),
])
def test_a_header_line_again_mid_file_is_refused_naming_it(tmp_path, name, reader, data, line):
    """`cat a.tsv b.tsv` of two files with header lines: the second header would be a record."""
    err = error_of(reader, write(tmp_path, name, data))
    assert err.line == line and "header line" in err.problem and "two files are joined" in err.problem


@pytest.mark.parametrize("name, reader, data, line, field", [
    ("q.tsv", read_id_text_tsv, b"\xef\xbb\xbf1\ta\n\xef\xbb\xbf2\tb\n", 2, "id"),
    ("q.tsv", read_id_text_tsv, b"1\ta\n\xef\xbb\xbf\n2\tb\n", 2, None),
    ("q.txt", read_trec_qrels, b"1 0 7 1\n\xef\xbb\xbf2 0 8 1\n", 2, "query_id"),
    ("q.txt", read_trec_qrels, b"1 0 7 1\n\xef\xbb\xbf\n2 0 8 1\n", 2, None),
])
def test_a_byte_order_mark_at_the_start_of_a_later_line_is_refused_naming_it(tmp_path, name, reader, data, line,
                                                                             field):
    """Where two files are joined with cat, the second's byte-order mark would become part of an id."""
    err = error_of(reader, write(tmp_path, name, data))
    assert (err.line, err.field) == (line, field) and "two files are joined" in err.problem


@pytest.mark.parametrize("data, line, text", [
    (b"1\ta\n2\t\n", 2, ""),
    (b"1\ta\n2\t   \n", 2, "   "),
    (b"1\ta\n\n2\t?!\n", 3, "?!"),
    ("1\ta\n2\t\u00bf\u2014 \u2026\n".encode(), 2, "\u00bf\u2014 \u2026"),
])
def test_a_text_without_a_word_is_refused_naming_file_line_and_field(tmp_path, data, line, text):
    """An empty or punctuation-only query is the empty text to the dedup (irdata.dedup), equal to every other."""
    path = write(tmp_path, "q.tsv", data)
    err = error_of(read_id_text_tsv, path, "query_id", "text")
    assert (err.path, err.line, err.field) == (str(path), line, "text") and f"text {text!r} has no word" in err.problem
    assert read_id_text_tsv(path, wordless=True).num_rows == 2


def test_a_text_of_symbols_or_of_other_scripts_has_words(tmp_path):
    path = write(tmp_path, "q.tsv", "1\t$5\n2\t\u6771\u4eac\n3\t\u00bfqu\u00e9?\n4\t \"x\"\n".encode())
    assert read_id_text_tsv(path).num_rows == 4
