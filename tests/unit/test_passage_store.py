"""The passage store: one memory-mapped Arrow file per collection, in the indexes' row order."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from irdata import passage_store
from irdata.errors import InputError
from irdata.id_order import ids_digest, sort_by_id
from irdata.passage_store import PassageStore, write_passage_store
from irdata.sources.msmarco import validate_msmarco_inputs

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources/demo"


def tsv(path, rows):
    path.write_text("".join(f"{pid}\t{text}\n" for pid, text in rows), encoding="utf-8")
    return path


def test_numeric_ids_sort_numerically_and_are_found_by_id_and_row(tmp_path):
    rows = [("100", "hundred"), ("9", "nine"), ("10", "ten"), ("0", "zero")]
    stats = write_passage_store(tsv(tmp_path / "c.tsv", rows), tmp_path / "s.arrow")
    store = PassageStore(tmp_path / "s.arrow")
    assert stats["passages"] == len(store) == 4 and store.numeric
    assert store.ids.to_pylist() == ["0", "9", "10", "100"]
    assert store["10"] == "ten" and store.get("9") == "nine" and store.get(100) == "hundred"
    assert "0" in store and "012" not in store and "11" not in store and "-1" not in store and "" not in store
    assert store.get("010") is None and store.get("10\n") is None  # not canonical integers, so not the id 10
    with pytest.raises(KeyError):
        store["11"]
    assert store.texts(["100", "0", "100"]) == ["hundred", "zero", "hundred"]
    with pytest.raises(KeyError, match=r"2 id\(s\) not in .*\['7', 'x'\]"):
        store.texts(["7", "9", "x"])
    assert store.rows_of(["100", "5", "0"]).tolist() == [3, -1, 0]
    assert store.row_texts([3, 0]) == ["hundred", "zero"] and store.row_ids([1, 2]) == ["9", "10"]
    assert store.slice_texts(1, 3) == ["nine", "ten"] and store.slice_texts(3, 3) == []
    assert store.ids_sha256 == ids_digest(store.ids)


def test_string_ids_sort_by_code_point_as_the_indexes_do(tmp_path):
    rows = [("b", "B"), ("12", "twelve"), ("012", "oh twelve"), ("é", "e acute"), ("a", "A"), ("z", "Z")]
    table = pa.table({"id": pa.array([r[0] for r in rows], pa.large_string()), "text": [r[1] for r in rows]})
    write_passage_store(table, tmp_path / "s.arrow")
    store = PassageStore(tmp_path / "s.arrow")
    assert not store.numeric
    assert store.ids.to_pylist() == sort_by_id(table).column("id").to_pylist() == ["012", "12", "a", "b", "z", "é"]
    assert [store[pid] for pid, _ in rows] == [text for _, text in rows]
    assert store.rows_of(["é", "c", "012", "", "zz"]).tolist() == [5, -1, 0, -1, -1]


def test_lookups_across_many_record_batches(tmp_path, monkeypatch):
    """Ids are found by binary search over batches of keys; check it against a dict, with gaps."""
    monkeypatch.setattr(passage_store, "BATCH_ROWS", 7)
    rng = np.random.default_rng(3)
    pids = rng.choice(10_000, 500, replace=False)
    truth = {str(pid): f"text of {pid}" for pid in pids}
    write_passage_store(pa.table({"id": list(truth), "text": list(truth.values())}), tmp_path / "s.arrow")
    store = PassageStore(tmp_path / "s.arrow")
    assert store._text.num_chunks == -(-500 // 7)
    asked = [str(i) for i in random.Random(0).sample(range(10_001), 2000)] + ["10000", "99999999999"]
    assert [store.get(pid) for pid in asked] == [truth.get(pid) for pid in asked]
    present = [pid for pid in asked if pid in truth]
    assert store.texts(present) == [truth[pid] for pid in present]
    rows = store.rows_of(present)
    assert store.row_ids(rows) == present and len(present) > 50
    monkeypatch.setattr(passage_store, "BATCH_ROWS", 3)  # string ids, several batches
    write_passage_store(pa.table({"id": ["k", "c", "x", "a", "m", "b", "q"], "text": list("kcxambq")}),
                        tmp_path / "t.arrow")
    strings = PassageStore(tmp_path / "t.arrow")
    assert [strings.get(k) for k in "abckmqxz"] == list("abckmqx") + [None]


def test_opening_and_reading_allocate_nothing(tmp_path):
    """The store is memory-mapped: Arrow allocates no buffer to open it or to read texts from it."""
    write_passage_store(pa.table({"id": [str(i) for i in range(50_000)], "text": ["word " * 50] * 50_000}),
                        tmp_path / "s.arrow")
    before = pa.total_allocated_bytes()
    store = PassageStore(tmp_path / "s.arrow")
    assert store.texts([str(i) for i in range(0, 50_000, 997)])[0].startswith("word")
    assert "49999" in store
    assert pa.total_allocated_bytes() == before


def test_bad_or_missing_stores_fail_clearly_and_leave_nothing(tmp_path):
    dup = tsv(tmp_path / "dup.tsv", [("1", "a"), ("2", "b"), ("1", "c")])
    with pytest.raises(InputError, match="line 3.*duplicate id '1'"):
        write_passage_store(dup, tmp_path / "s.arrow")
    with pytest.raises(ValueError, match="duplicate passage id '1'"):
        write_passage_store(pa.table({"id": ["1", "1"], "text": ["a", "b"]}), tmp_path / "s.arrow")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dup.tsv"]
    with pytest.raises(FileNotFoundError, match="no passage store; it is written by rule validate_msmarco_inputs"):
        PassageStore(tmp_path / "s.arrow")
    with pa.ipc.new_file(tmp_path / "other.arrow", pa.schema([("id", pa.string())])) as writer:
        writer.write_table(pa.table({"id": ["1"]}))
    with pytest.raises(ValueError, match="not a passage store"):
        PassageStore(tmp_path / "other.arrow")


DEMO_INPUTS = [DEMO / name for name in ("collection.tsv", "queries.train.tsv", "qrels.train.tsv",
                                        "queries.dev.small.tsv", "qrels.dev.small.tsv", "answers.dev.small.jsonl")]


def test_validation_writes_the_store_of_the_collection_it_checked(tmp_path):
    report = validate_msmarco_inputs(*DEMO_INPUTS, [DEMO / "queries.test.tsv"], passage_store=tmp_path / "s.arrow")
    store = PassageStore(tmp_path / "s.arrow")
    assert len(store) == report["rows"]["collection"] > 1000
    first = (DEMO / "collection.tsv").read_text(encoding="utf-8").splitlines()[0].split("\t")
    assert store[first[0]] == first[1]


def test_invalid_inputs_write_no_store(tmp_path):
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text((DEMO / "qrels.train.tsv").read_text() + "311526\t0\tno-such-passage\t1\n")
    inputs = [*DEMO_INPUTS[:2], qrels, *DEMO_INPUTS[3:]]
    with pytest.raises(InputError, match="no-such-passage' is not in the collection"):
        validate_msmarco_inputs(*inputs, [], passage_store=tmp_path / "s.arrow")
    assert not (tmp_path / "s.arrow").exists()


def test_titles_are_stored_beside_the_texts_and_joined_for_the_indexes(tmp_path, monkeypatch):
    monkeypatch.setattr(passage_store, "BATCH_ROWS", 2)  # titles cross record batches too
    table = pa.table({"id": ["d3", "d1", "d2"], "title": ["Tides", "", "Moon "], "text": ["Moon pull.", "Bare.", ""]})
    write_passage_store(table, tmp_path / "s.arrow")
    store = PassageStore(tmp_path / "s.arrow")
    assert store.titled and store.ids.to_pylist() == ["d1", "d2", "d3"]
    assert [store.title(p) for p in ("d1", "d2", "d3", "nope")] == ["", "Moon ", "Tides", None]
    assert store["d3"] == "Moon pull."  # the text alone: the prompts show the title in its own tag
    # title + " " + text, trimmed, as BEIR's evaluation encodes a document
    assert store.index_texts(0, 3) == ["Bare.", "Moon", "Tides Moon pull."] and store.index_texts(2, 2) == []


def test_a_collection_without_titles_keeps_the_store_it_had(tmp_path):
    rows = [("2", "two"), ("1", "one")]
    write_passage_store(tsv(tmp_path / "c.tsv", rows), tmp_path / "plain.arrow")
    untitled = pa.table({"id": ["2", "1"], "title": ["", ""], "text": ["two", "one"]})
    write_passage_store(untitled, tmp_path / "empty_titles.arrow")
    assert (tmp_path / "plain.arrow").read_bytes() == (tmp_path / "empty_titles.arrow").read_bytes()
    store = PassageStore(tmp_path / "plain.arrow")
    assert not store.titled and store.title("1") is None and store.index_texts(0, 2) == ["one", "two"]
