"""The input check of a BEIR folder (irdata/sources/beir.py): the checked files later stages read, BEIR's split
rules, and bad input refused before anything is written."""

import gzip
import shutil
from pathlib import Path

import pyarrow.compute as pc
import pytest

from irdata.dedup import dedup_train_queries
from irdata.errors import InputError
from irdata.heldout import Source, read_checked_heldout
from irdata.passage_store import PassageStore
from irdata.query_files import read_queries
from irdata.sources.beir import (
    CHECKED_FILES,
    beir_paths,
    checked_qrels_files,
    qrels_files,
    raw_beir_paths,
    validate_beir_inputs,
)
from irdata.tsv import read_trec_qrels

EXAMPLE = Path(__file__).resolve().parents[2] / "resources/beir-example"


def checked_paths(folder: Path) -> dict:
    return {key: folder / f"out/{key}" for key in CHECKED_FILES}


def heldout_ids(checked: dict) -> list[str]:
    return read_checked_heldout(checked["heldout_queries"]).column("query_id").to_pylist()


def dedup(checked: dict, report: dict):
    """The dedup on the checked files, as write_query_ids runs it: each held-out query under its source."""
    held = read_checked_heldout(checked["heldout_queries"])
    sources = [(Source.from_record(record), held.filter(pc.equal(held.column("source"), i)))
               for i, record in enumerate(report["heldout_sources"])]
    return dedup_train_queries((Source.from_record(report["train_source"]), read_queries(checked["train_queries"])),
                               sources)


def extra_source(path, i=0) -> Source:
    return Source(f"source.heldout_queries[{i}]", str(path))


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
    assert heldout_ids(checked) == ["q6", "q7", "q8", "q9"]
    qrels = read_trec_qrels(checked["dev_qrels"]).to_pylist()
    assert {"query_id": "q6", "iteration": "0", "passage_id": "d06", "relevance": 0} in qrels and len(qrels) == 4
    assert checked["dev_answers"].read_text() == ""  # BEIR has no reference answers
    assert report["rows"]["train_queries"] == 5 and report["rows"]["dev_qrels"] == 4
    assert list(report["files"]) == raw_beir_paths(example)
    store = PassageStore(tmp_path / "p.arrow")
    assert len(store) == 12 and store.title("d04") == "Red blood cells" and store.title("d11") == ""
    # the sources: the train split, and the dev split first among the held-out ones
    assert report["train_source"] == {"keys": ["source.train_split"], "file": str(example / "qrels/train.tsv")}
    assert report["heldout_sources"] == [
        {"keys": ["source.dev_split"], "file": str(example / "qrels/test.tsv"), "queries": 3},
        {"keys": ["source.folder"], "file": str(example / "qrels/dev.tsv"), "queries": 1}]
    # the dedup on the checked files: train q5 repeats the held-out dev-split query q9
    assert dedup(checked, report).excluded.to_dict("records") == [{
        "query_id": "q5", "reason": "heldout", "duplicate_of": "q9", "source_key": "source.folder",
        "source_file": str(example / "qrels/dev.tsv")}]


def test_extra_heldout_query_files_are_added(example, tmp_path):
    extra = tmp_path / "more.tsv"
    extra.write_text("x1\thow does a vaccine work\nx2\tan unseen question\n")
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [extra_source(extra)], checked=checked)
    assert heldout_ids(checked) == ["q6", "q7", "q8", "q9", "x1", "x2"]
    assert report["heldout_sources"][-1] == {"keys": ["source.heldout_queries[0]"], "file": str(extra), "queries": 2}


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
    report = validate_beir_inputs(example, "train", "test", [extra_source(extra)], checked=checked)
    assert heldout_ids(checked) == ["q6", "q7", "q8", "q9", "x2"]
    assert report["rows"]["heldout_queries"] == 5 and report["rows"]["heldout_repeats"] == 2
    result = dedup(checked, report)
    assert result.excluded[["query_id", "reason", "duplicate_of"]].to_dict("records") == [
        {"query_id": "q5", "reason": "heldout", "duplicate_of": "q9"}]
    assert "q5" not in result.collection


def test_an_id_held_out_with_two_texts_keeps_both_texts(example, tmp_path):
    """An extra held-out file may number its queries apart from the folder: its q1 is another query, and a
    train query repeating either text leaves train."""
    extra = tmp_path / "more.tsv"
    extra.write_text("q1\twhat causes earthquakes\n")
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [extra_source(extra)], checked=checked)
    assert heldout_ids(checked) == ["q6", "q7", "q8", "q9", "q1"]
    result = dedup(checked, report)
    assert sorted(result.excluded["query_id"]) == ["q4", "q5"]


def test_a_named_pipe_among_the_held_out_queries_is_refused(tmp_path):
    """The check reads every input twice (its records, its sha256): a pipe is refused before anything opens it."""
    import os

    fifo = tmp_path / "extra.fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError) as info:
        validate_beir_inputs(EXAMPLE, "train", "test", [str(fifo)])
    assert info.value.path == str(fifo) and "a pipe or a device, not a file" in info.value.problem


# -- the splits of a BEIR folder, whatever their file names -------------------------------------------------------


def gzip_file(path: Path) -> Path:
    target = path.with_name(path.name + ".gz")
    target.write_bytes(gzip.compress(path.read_bytes(), mtime=0))
    path.unlink()
    return target


def test_qrels_files_are_found_whatever_the_case_of_their_names_or_their_compression(tmp_path):
    qrels = tmp_path / "qrels"
    qrels.mkdir()
    for name in ("train.tsv", "Dev.TSV", "test.tsv.gz", "Other.split.Tsv.GZ", "a.tsv.bz2", "b.tsv.xz", "c.tsv.zst",
                 ".DS_Store", "._train.tsv"):
        (qrels / name).write_text("")
    assert qrels_files(tmp_path) == {"a": [qrels / "a.tsv.bz2"], "b": [qrels / "b.tsv.xz"], "c": [qrels / "c.tsv.zst"],
                                     "dev": [qrels / "Dev.TSV"], "other.split": [qrels / "Other.split.Tsv.GZ"],
                                     "test": [qrels / "test.tsv.gz"], "train": [qrels / "train.tsv"]}
    assert beir_paths(tmp_path, "DEV")["qrels"] == qrels / "Dev.TSV"
    assert beir_paths(tmp_path, "test")["qrels"] == qrels / "test.tsv.gz"
    # a split the folder lacks keeps BEIR's name, for the missing-input check to name
    assert beir_paths(tmp_path, "validation")["qrels"] == qrels / "validation.tsv"
    assert raw_beir_paths(tmp_path)[2:] == [str(qrels / n) for n in (
        "a.tsv.bz2", "b.tsv.xz", "c.tsv.zst", "Dev.TSV", "Other.split.Tsv.GZ", "test.tsv.gz", "train.tsv")]


@pytest.mark.parametrize("name, words", [
    ("dev.tsv.lz4", "compressed as .lz4, which the readers do not read"),
    ("dev.tsv.zip", "compressed as .zip, which the readers do not read"),
    ("dev.txt", "not a qrels file"),
    ("notes.md", "not a qrels file"),
    ("old", "not a qrels file"),  # a folder
])
def test_an_entry_of_qrels_that_is_no_readable_split_is_refused_not_skipped(example, tmp_path, name, words):
    path = example / "qrels" / name
    path.mkdir() if name == "old" else path.write_text("query-id\tcorpus-id\tscore\nq9\td12\t1\n")
    with pytest.raises(InputError, match=words) as error:
        validate_beir_inputs(example, "train", "test", [], checked=checked_paths(tmp_path))
    assert Path(error.value.path) == path and "would not be held out" in str(error.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("second", ["dev.tsv.gz", "DEV.tsv"])
def test_a_split_given_by_two_files_is_refused(example, tmp_path, second):
    shutil.copyfile(example / "qrels/dev.tsv", example / "qrels" / second)
    if {p.name for p in (example / "qrels").iterdir()} != {"train.tsv", "test.tsv", "dev.tsv", second}:
        pytest.skip("a file system that folds the case of names holds one file")
    with pytest.raises(InputError, match="split 'dev' is given by 2 files"):
        checked_qrels_files(example)


@pytest.mark.parametrize("rename", {"dev.TSV": "dev.TSV", "Dev.tsv": "Dev.tsv"}.values())
def test_a_held_out_split_under_another_case_is_held_out(example, tmp_path, rename):
    """The issue's case: q5 repeats the held-out q9 of the dev split, whose file is named in another case."""
    (example / "qrels/dev.tsv").rename(example / "qrels" / rename)
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [], checked=checked)
    assert "q9" in heldout_ids(checked)
    assert dedup(checked, report).excluded[["query_id", "source_file"]].to_dict("records") == [
        {"query_id": "q5", "source_file": str(example / "qrels" / rename)}]
    assert str(example / "qrels" / rename) in report["files"]


def test_the_train_and_dev_splits_are_found_whatever_the_case_of_their_names(example, tmp_path):
    (example / "qrels/train.tsv").rename(example / "qrels/Train.tsv")
    (example / "qrels/test.tsv").rename(example / "qrels/TEST.TSV")
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [], checked=checked)
    assert read_queries(checked["train_queries"]).column("query_id").to_pylist() == ["q1", "q2", "q3", "q4", "q5"]
    assert report["rows"]["qrels:TEST"] == 4 and report["train_source"]["file"] == str(example / "qrels/Train.tsv")


def test_a_gzip_compressed_held_out_split_is_found(example):
    gz = gzip_file(example / "qrels/dev.tsv")
    assert checked_qrels_files(example)["dev"] == gz and str(gz) in raw_beir_paths(example)


def test_a_gzip_compressed_held_out_split_is_held_out(example, tmp_path):
    """The issue's case: a folder whose held-out split is qrels/dev.tsv.gz: q5, a repeat of its q9, leaves train."""
    gz = gzip_file(example / "qrels/dev.tsv")
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [], checked=checked)
    assert dedup(checked, report).excluded[["query_id", "duplicate_of", "source_file"]].to_dict("records") == [
        {"query_id": "q5", "duplicate_of": "q9", "source_file": str(gz)}]


# -- a train split that is also held out ---------------------------------------------------------------------------


def test_a_held_out_split_with_every_train_query_is_refused_naming_both_files(example, tmp_path):
    shutil.copyfile(example / "qrels/train.tsv", example / "qrels/dev.tsv")
    with pytest.raises(InputError, match="every train query") as error:
        validate_beir_inputs(example, "train", "test", [], checked=checked_paths(tmp_path))
    assert Path(error.value.path) == example / "qrels/train.tsv" and error.value.field == "source.train_split"
    assert f"{example / 'qrels/dev.tsv'}, held out as source.folder" in str(error.value)
    assert not (tmp_path / "out").exists()


def test_a_listed_file_with_the_train_queries_is_refused(example, tmp_path):
    """Listing the train queries themselves as held out would exclude every one of them: refused."""
    extra = tmp_path / "train-copy.tsv"
    extra.write_text("".join(f"{q}\t{t}\n" for q, t in [("q1", "How do plants make sugar from light?"),
                                                         ("q2", "what carries oxygen in the blood"),
                                                         ("q3", "why do antibiotics not cure a cold"),
                                                         ("q4", "what causes earthquakes")]))
    with pytest.raises(InputError, match="every train query .* is also a held-out query") as error:
        validate_beir_inputs(example, "train", "test", [extra_source(extra)], checked=checked_paths(tmp_path))
    # q5 is held out by the dev split, the others by the file: the two together hold every train query
    assert Path(error.value.path) == example / "qrels/train.tsv"
    assert f"{example / 'qrels/dev.tsv'} (source.folder), {extra} (source.heldout_queries[0])" in str(error.value)


def test_the_audit_queries_are_held_out(example, tmp_path):
    audit = tmp_path / "audit.tsv"
    audit.write_text("a1\tWhy do antibiotics not cure a cold?\n")
    checked = checked_paths(tmp_path)
    report = validate_beir_inputs(example, "train", "test", [Source("audit.queries", str(audit))], checked=checked)
    excluded = dedup(checked, report).excluded
    assert excluded[excluded["query_id"] == "q3"][["duplicate_of", "source_key"]].to_dict("records") == [
        {"duplicate_of": "a1", "source_key": "audit.queries"}]
