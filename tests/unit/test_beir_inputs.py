"""The input check of a BEIR folder (irdata/beir_inputs.py): the checked files later stages read, BEIR's split
rules, and bad input refused before anything is written."""

import shutil
from pathlib import Path

import pytest

from irdata.beir_inputs import CHECKED_FILES, raw_beir_paths, validate_beir_inputs
from irdata.dedup import dedup_train_queries
from irdata.errors import InputError
from irdata.msmarco_inputs import read_queries
from irdata.passage_store import PassageStore
from irdata.tsv import read_trec_qrels

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/beir-example"


def checked_paths(folder: Path) -> dict:
    return {key: folder / f"out/{key}" for key in CHECKED_FILES}


@pytest.fixture
def example(tmp_path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "beir"))


def test_the_example_folder_becomes_the_checked_files(example, tmp_path):
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [], checked=checked, passage_store=tmp_path / "p.arrow")
    # a query belongs to a split through that split's qrels, in queries.jsonl order
    assert read_queries(checked["train_queries"]).column("query_id").to_pylist() == ["q1", "q2", "q3", "q4", "q5"]
    assert read_queries(checked["dev_queries"]).column("query_id").to_pylist() == ["q6", "q7", "q8"]
    # held out: every split but train (dev_split first, then the others)
    assert read_queries(checked["heldout_queries"]).column("query_id").to_pylist() == ["q6", "q7", "q8", "q9"]
    qrels = read_trec_qrels(checked["dev_qrels"]).to_pylist()
    assert {"query_id": "q6", "iteration": "0", "passage_id": "d06", "relevance": 0} in qrels and len(qrels) == 4
    assert checked["dev_answers"].read_text() == ""  # BEIR has no reference answers
    assert report["rows"]["train_queries"] == 5 and report["rows"]["dev_qrels"] == 4
    assert list(report["files"]) == raw_beir_paths({"folder": example, "heldout_queries": []})
    store = PassageStore(tmp_path / "p.arrow")
    assert len(store) == 12 and store.title("d04") == "Red blood cells" and store.title("d11") == ""
    # the dedup on the checked files: train q5 repeats the held-out dev-split query q9
    result = dedup_train_queries(read_queries(checked["train_queries"]),
                                 [read_queries(checked["heldout_queries"])])
    assert result.excluded.to_dict("records") == [{"query_id": "q5", "reason": "heldout",
                                                    "duplicate_of": "q9"}]


def test_extra_heldout_query_files_are_added(example, tmp_path):
    extra = tmp_path / "more.tsv"
    extra.write_text("x1\thow does a vaccine work\nx2\tan unseen question\n")
    checked = checked_paths(tmp_path)
    validate_beir_inputs(example, "train", "test", [str(extra)], checked=checked)
    ids = read_queries(checked["heldout_queries"]).column("query_id").to_pylist()
    assert ids == ["q6", "q7", "q8", "q9", "x1", "x2"]


def append(path: Path, line: str):
    with open(path, "a") as fh:
        fh.write(line + "\n")


@pytest.mark.parametrize("break_it, file, line, field", [
    (lambda d: append(d / "qrels/train.tsv", "q1\tnope\t1"), "qrels/train.tsv", 9, "corpus-id"),
    (lambda d: append(d / "qrels/test.tsv", "q404\td01\t1"), "qrels/test.tsv", 6, "query-id"),
    (lambda d: append(d / "corpus.jsonl", '{"_id": "d01", "title": "again", "text": "dup"}'), "corpus.jsonl", 13,
     "_id"),
    (lambda d: append(d / "corpus.jsonl", '{"_id": "d13", "title": " ", "text": ""}'), "corpus.jsonl", 13, "text"),
    (lambda d: append(d / "queries.jsonl", '{"_id": "q10", "text": "half'), "queries.jsonl", 10, None),
    (lambda d: (d / "qrels/dev.tsv").write_text("q9\td12\t1\n"), "qrels/dev.tsv", 1, None),
])
def test_bad_input_names_file_line_and_field_and_writes_nothing(example, tmp_path, break_it, file, line, field):
    break_it(example)
    checked = checked_paths(tmp_path)
    with pytest.raises(InputError) as error:
        validate_beir_inputs(example, "train", "test", [], checked=checked, passage_store=tmp_path / "p.arrow")
    assert Path(error.value.path) == example / file and error.value.line == line and error.value.field == field
    assert not (tmp_path / "out").exists() and not (tmp_path / "p.arrow").exists()


def test_a_query_text_that_would_break_a_tsv_line_is_refused(example, tmp_path):
    text = (example / "queries.jsonl").read_text().replace("what carries oxygen", "what\\tcarries oxygen")
    (example / "queries.jsonl").write_text(text)
    with pytest.raises(InputError) as error:
        validate_beir_inputs(example, "train", "test", [], checked=checked_paths(tmp_path))
    assert error.value.line == 2 and error.value.field == "text" and "tab" in str(error.value)


@pytest.mark.parametrize("train, dev, message", [
    ("train", "validation", "no such qrels file"),
    ("train", "train", "both 'train'"),
])
def test_the_configured_splits_must_be_qrels_files_of_the_folder(example, tmp_path, train, dev, message):
    with pytest.raises(InputError, match=message):
        validate_beir_inputs(example, train, dev, [], checked=checked_paths(tmp_path))


def test_a_query_held_out_by_two_sources_is_held_out_once_and_its_repeat_leaves_train(example, tmp_path):
    """q6 is in the test and the dev split, q7 in the test split and an extra held-out file: each is held out
    once, and every held-out query after them still is (q9, whose text train q5 repeats, and x2)."""
    (example / "qrels/dev.tsv").write_text("query-id\tcorpus-id\tscore\nq6\td05\t1\nq9\td12\t1\n")
    extra = tmp_path / "more.tsv"
    extra.write_text("q7\thow does a vaccine work\nx2\tan unseen question\n")
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [str(extra)], checked=checked)
    heldout = read_queries(checked["heldout_queries"])
    assert heldout.column("query_id").to_pylist() == ["q6", "q7", "q8", "q9", "x2"]
    assert report["rows"]["heldout_queries"] == 5 and report["rows"]["heldout_repeats"] == 2
    result = dedup_train_queries(read_queries(checked["train_queries"]), [heldout])
    assert result.excluded.to_dict("records") == [{"query_id": "q5", "reason": "heldout", "duplicate_of": "q9"}]
    assert "q5" not in result.collection


def test_an_id_held_out_with_two_texts_keeps_both_texts(example, tmp_path):
    """An extra held-out file may number its queries apart from the folder: its q1 is another query, and a
    train query repeating either text leaves train."""
    extra = tmp_path / "more.tsv"
    extra.write_text("q1\twhat causes earthquakes\n")
    checked = checked_paths(tmp_path)
    validate_beir_inputs(example, "train", "test", [str(extra)], checked=checked)
    from irdata.dedup import read_heldout_queries

    heldout = read_heldout_queries(checked["heldout_queries"])
    assert heldout.column("query_id").to_pylist() == ["q6", "q7", "q8", "q9", "q1"]
    result = dedup_train_queries(read_queries(checked["train_queries"]), [heldout])
    assert sorted(result.excluded["query_id"]) == ["q4", "q5"]


def test_a_named_pipe_among_the_held_out_queries_is_refused(tmp_path):
    """The check reads every input twice (its records, its sha256): a pipe is refused before anything opens it."""
    import os

    fifo = tmp_path / "extra.fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as info:
        validate_beir_inputs(EXAMPLE, "train", "test", [str(fifo)])
    assert info.value.path == str(fifo) and "a pipe or a device, not a file" in info.value.problem
