"""The blinded human audit (irdata/doubting/human_audit.py): the seeded, origin-blind sheet, the filled
sheets read back (a bad one refused, naming file, line and field), Wilson and Newcombe intervals,
annotator kappa and the card's wording."""

import csv
import json
import os

import pytest

from irdata.doubting.card_parts import human_audit_text
from irdata.doubting.human_audit import (
    COLUMNS,
    cohen_kappa,
    draw_sample,
    fleiss_kappa,
    human_results,
    newcombe,
    qrels_positives,
    read_sheets,
    sheet_csv,
    wilson,
    write_sheet,
)
from irdata.errors import InputError

QUERIES = {f"q{i}": f"query {i}?" for i in range(8)}
PASSAGES = {f"p{i}": f"passage {i}, with a comma and \"quotes\"" for i in range(40)}
OFFICIAL = {f"q{i}": [f"p{i}"] for i in range(8)}
STRICT = {f"q{i}": [f"p{10 + i}", f"p{20 + i}"] for i in range(6)} | {"q6": ["p6"]}  # q6: the official one


def sample(n=8, seed=0):
    return draw_sample(list(QUERIES), OFFICIAL, STRICT, n, seed)


def test_the_sample_is_seeded_and_blind(tmp_path):
    s = sample(5)
    assert s == sample(5) and s != sample(5, seed=1)
    assert len(s["queries"]) == 5 and set(s["queries"]) <= set(QUERIES)
    # one official and, where the release has one, one strict positive per query; a shared pair is one item
    for q in s["queries"]:
        origins = sorted(o for item in s["items"].values() if item["query_id"] == q for o in item["origins"])
        assert origins == (["official"] if q == "q7" else ["official", "strict"])
    full = sample(8)
    assert full["items"]["q6-p6"]["origins"] == ["strict", "official"] and len(full["items"]) == 14
    write_sheet(s, QUERIES.get, PASSAGES.get, tmp_path / "s.csv", tmp_path / "s.json", tmp_path / "key.json")
    text = (tmp_path / "s.csv").read_text()
    assert "strict" not in text and "official" not in text
    rows = list(csv.DictReader(open(tmp_path / "s.csv", newline="")))
    assert [r["item_id"] for r in rows] == list(s["items"]) and all(r["answer"] == "" for r in rows)
    assert rows[0]["allowed"] == "yes|partly|no"
    tasks = json.loads((tmp_path / "s.json").read_text())
    assert [t["data"]["item_id"] for t in tasks] == list(s["items"]) and "origins" not in json.dumps(tasks)
    assert json.loads((tmp_path / "key.json").read_text()) == s


def filled(tmp_path, name, answers: dict, s):
    text = sheet_csv(s["items"], QUERIES.get, PASSAGES.get)
    rows = list(csv.reader(text.splitlines()))
    for row in rows[1:]:
        row[4] = answers.get(row[0], "")
    path = tmp_path / name
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    return path


def test_results_per_origin_with_intervals_and_agreement(tmp_path):
    s = sample(8)
    strict = [i for i, item in s["items"].items() if item["origins"] == ["strict"]]
    official = [i for i, item in s["items"].items() if item["origins"] == ["official"]]
    a = {**dict.fromkeys(strict, "yes"), **dict.fromkeys(official, "no"), "q6-p6": "yes"}
    b = {**a, official[0]: "yes"}
    del b[strict[0]]
    sheets = read_sheets([filled(tmp_path, "a.csv", a, s), filled(tmp_path, "b.csv", b, s)], QUERIES.get,
                         PASSAGES.get)
    r = human_results(s, sheets)
    st, of = r["origins"]["strict"], r["origins"]["official"]
    assert (st["items"], st["judged"], st["fully_answers"]) == (7, 7, 7)
    # official[0]: one yes, one no: a tie is not "yes"
    assert (of["items"], of["judged"], of["fully_answers"], of["not_judged"]) == (8, 8, 1, 0)
    assert of["ci95"] == pytest.approx(list(wilson(1, 8)))
    assert r["difference"]["strict_minus_official"] == pytest.approx(1 - 1 / 8)
    assert r["agreement"]["method"] == "cohen" and r["agreement"]["items"] == 13
    assert r["missing_items"] == [] and r["sheets"] == ["a.csv", "b.csv"]


def test_wilson_and_newcombe_match_published_values():
    # Newcombe (1998), Statistics in Medicine 17: 81/263 is 0.2553-0.3662 (Wilson); his example 56/70 vs
    # 48/80 gives a difference of 0.2000 with the hybrid interval 0.0524 to 0.3339
    assert wilson(81, 263) == pytest.approx((0.2553, 0.3662), abs=1e-4)
    d, lo, hi = newcombe(56, 70, 48, 80)
    assert (d, lo, hi) == pytest.approx((0.2, 0.0524, 0.3339), abs=1e-4)
    assert wilson(0, 0) is None and newcombe(1, 2, 0, 0) is None


def test_kappas():
    assert cohen_kappa(["yes", "no", "yes", "no"], ["yes", "no", "yes", "no"]) == 1.0
    assert cohen_kappa(["yes", "yes", "no", "no"], ["yes", "no", "yes", "no"]) == 0.0
    # Fleiss (1971)-style check: perfect agreement is 1, and two of three disagreeing lowers it
    assert fleiss_kappa([["yes"] * 3, ["no"] * 3]) == 1.0
    assert fleiss_kappa([["yes", "yes", "no"], ["no", "no", "yes"]]) < 0


@pytest.mark.parametrize("edit, line, field", [
    (lambda rows: rows[2].__setitem__(0, "q9-p1"), 3, "item_id"),
    (lambda rows: rows[2].__setitem__(0, rows[1][0]), 3, "item_id"),
    (lambda rows: rows[3].__setitem__(4, "maybe"), 4, "answer"),
    (lambda rows: rows[1].__setitem__(1, rows[1][1] + " "), 2, "query"),
    (lambda rows: rows[2].__setitem__(2, "another text"), 3, "passage"),
    (lambda rows: rows[0].__setitem__(4, "label"), 1, "header"),
])
def test_a_bad_sheet_is_refused_naming_file_line_and_field(tmp_path, edit, line, field):
    s = sample(4)
    rows = list(csv.reader(sheet_csv(s["items"], QUERIES.get, PASSAGES.get).splitlines()))
    edit(rows)
    path = tmp_path / "bad.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    with pytest.raises(InputError) as err:
        read_sheets([path], QUERIES.get, PASSAGES.get)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)


def test_a_changed_sample_reports_missing_items_and_keeps_the_sheet_valid(tmp_path):
    old = sample(3)
    path = filled(tmp_path, "a.csv", dict.fromkeys(old["items"], "yes"), old)
    new = sample(5, seed=3)
    r = human_results(new, read_sheets([path], QUERIES.get, PASSAGES.get))
    kept = set(old["items"]) & set(new["items"])
    assert set(r["missing_items"]) == set(new["items"]) - kept
    assert r["judged_outside_sample"] == len(set(old["items"]) - kept)


def test_the_card_follows_the_numbers(tmp_path):
    s = sample(8)
    answers = {i: "yes" if "strict" in item["origins"] else "no" for i, item in s["items"].items()}
    r = human_results(s, read_sheets([filled(tmp_path, "a.csv", answers, s)], QUERIES.get, PASSAGES.get))
    text = human_audit_text(r)
    assert "Strict positives: 7 of 7 judged items (100.0%" in text and "the interval excludes 0" in text
    assert "Official positives: 1 of 8" in text and "kappa" not in text
    no_strict = draw_sample(list(QUERIES), OFFICIAL, {}, 3, 0)
    r = human_results(no_strict, {})
    text = human_audit_text(r)
    assert "has no strict positive for any sampled query" in text and "none of its 3 items is judged yet" in text
    assert "No blinded human audit" in human_audit_text(None)
    assert COLUMNS[0] == "item_id"


def test_positives_of_qrels_and_of_an_empty_strict_qrels(tmp_path):
    (tmp_path / "strict.qrels").write_text("")
    assert qrels_positives(tmp_path / "strict.qrels") == {}
    (tmp_path / "official.qrels").write_text("q1 0 p1 1\nq1 0 p2 0\nq2 0 p3 1\nq1 0 p4 1\n")
    assert qrels_positives(tmp_path / "official.qrels") == {"q1": ["p1", "p4"], "q2": ["p3"]}


def test_item_ids_cannot_collide_whatever_the_ids_hold_and_the_workflows_own_sheet_reads_back(tmp_path):
    """Queries 1 and 1-2 with passages 2-3 and 3: joined with "-" both pairs were the item 1-2-3. The id escapes
    the separator (and its escape) in each id, so each pair is its own item, and its sheet reads back."""
    from irdata.doubting.human_audit import item_id, parse_item_id

    queries, passages = {"1": "one?", "1-2": "one two?"}, {"2-3": "two three", "3": "three"}
    s = draw_sample(list(queries), {"1": ["2-3"], "1-2": ["3"]}, {}, 2, 0)
    assert len(s["items"]) == 2 and sorted(s["items"]) == sorted([item_id("1", "2-3"), item_id("1-2", "3")])
    for q, p in (("1", "2-3"), ("1-2", "3"), ("a%2Db", "c"), ("-", "%"), ("q", "")):
        assert parse_item_id(item_id(q, p)) == (q, p)
    assert item_id("q1", "p7") == "q1-p7"  # ids without "-" or "%" read as before
    write_sheet(s, queries.get, passages.get, tmp_path / "s.csv", tmp_path / "s.json", tmp_path / "key.json")
    rows = list(csv.reader((tmp_path / "s.csv").read_text().splitlines()))
    for row in rows[1:]:
        row[4] = "yes"
    with open(tmp_path / "a.csv", "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    sheets = read_sheets([tmp_path / "a.csv"], queries.get, passages.get)
    assert sheets == {"a.csv": dict.fromkeys(s["items"], "yes")}
    assert human_results(s, sheets)["origins"]["official"]["fully_answers"] == 2


@pytest.mark.parametrize("encoding, delimiter, line_end", [
    ("utf-8-sig", ",", "\r\n"),  # Excel's "CSV UTF-8 (Comma delimited)"
    ("utf-8", ";", "\n"),  # LibreOffice, or a European Excel, with ; between fields
    ("cp1252", ",", "\r\n"),  # Excel's "CSV (Comma delimited)" on a Western Windows
    ("cp1252", ";", "\r\n"),
    ("utf-16", "\t", "\r\n"),  # Excel's "Unicode Text"
])
def test_a_sheet_saved_by_excel_or_libreoffice_is_read(tmp_path, encoding, delimiter, line_end):
    texts = {q: t + " café – “quoted”" for q, t in QUERIES.items()}
    s = draw_sample(list(texts), OFFICIAL, STRICT, 3, 0)
    rows = list(csv.reader(sheet_csv(s["items"], texts.get, PASSAGES.get).splitlines()))
    for row in rows[1:]:
        row[4] = "Yes"
    path = tmp_path / "excel.csv"
    with open(path, "w", encoding=encoding, newline="") as fh:
        csv.writer(fh, delimiter=delimiter, lineterminator=line_end).writerows(rows + [[""] * len(COLUMNS)])
    assert read_sheets([path], texts.get, PASSAGES.get) == {"excel.csv": dict.fromkeys(s["items"], "yes")}


def test_a_sheet_whose_encoding_lost_characters_is_refused_saying_how_to_save_it(tmp_path):
    texts = {q: t + " café 水" for q, t in QUERIES.items()}  # 水 is no Windows-1252 character: Excel writes "?"
    s = draw_sample(list(texts), OFFICIAL, STRICT, 2, 0)
    path = tmp_path / "excel.csv"
    path.write_bytes(sheet_csv(s["items"], texts.get, PASSAGES.get).replace("水", "?").encode("cp1252"))
    with pytest.raises(InputError) as err:
        read_sheets([path], texts.get, PASSAGES.get)
    assert err.value.line == 2 and err.value.field == "query" and "CSV UTF-8" in err.value.problem
    path.write_bytes(b"item_id,query\n\x81\x8d\n")
    with pytest.raises(InputError, match="neither UTF-8 nor Windows-1252"):
        read_sheets([path], texts.get, PASSAGES.get)


def test_the_same_sheet_listed_twice_is_refused_by_its_file_not_by_its_answers(tmp_path):
    s = sample(4)
    answers = dict.fromkeys(s["items"], "no")
    first = filled(tmp_path, "anna.csv", answers, s)
    (tmp_path / "copy").mkdir()
    copy = filled(tmp_path / "copy", "bert.csv", answers, s)
    with pytest.raises(InputError) as err:
        read_sheets([first, copy], QUERIES.get, PASSAGES.get)
    assert err.value.path == str(copy) and err.value.problem.startswith(f"a byte-for-byte copy of {first}: one "
                                                                        "annotator's sheet listed twice")
    # one path twice, under another spelling, or a link to the file: the same file
    (tmp_path / "link.csv").symlink_to(first)
    os.link(first, tmp_path / "hard.csv")
    for again in (first, tmp_path / "copy" / ".." / "anna.csv", tmp_path / "link.csv", tmp_path / "hard.csv"):
        with pytest.raises(InputError, match=f"the same file as {first}: one annotator's sheet listed twice"):
            read_sheets([first, again], QUERIES.get, PASSAGES.get)
    # two annotators whose answers agree item for item are two sheets (one typed "No" where the other typed "no")
    carla = filled(tmp_path, "carla.csv", dict.fromkeys(s["items"], "No"), s)
    sheets = read_sheets([first, carla], QUERIES.get, PASSAGES.get)
    assert sheets["anna.csv"] == sheets["carla.csv"]
    assert human_results(s, sheets)["agreement"]["annotators"] == 2
    # sheets nobody has filled yet are alike, and that is fine
    empty = [filled(tmp_path, name, {}, s) for name in ("c.csv", "d.csv")]
    assert list(read_sheets(empty, QUERIES.get, PASSAGES.get)) == ["c.csv", "d.csv"]


@pytest.mark.parametrize("column, cell, said", [
    ("allowed", "yes", "the answer 'yes'"), ("allowed", " Partly ", "the answer 'Partly'"),
    ("allowed", "y", "'y'"), ("question", "no", "the answer 'no'")])
def test_an_answer_typed_in_another_column_is_refused_naming_the_column(tmp_path, column, cell, said):
    s = sample(4)
    rows = list(csv.reader(sheet_csv(s["items"], QUERIES.get, PASSAGES.get).splitlines()))
    for row in rows[1:]:
        row[COLUMNS.index(column)] = cell
    path = tmp_path / "typed.csv"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    with pytest.raises(InputError) as err:
        read_sheets([path], QUERIES.get, PASSAGES.get)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 2, column)
    assert err.value.problem.startswith(f"the answer cell is empty and the {column} column holds {said} (the sheet "
                                        "wrote")
    # with its answer where it belongs, a note in another column changes nothing
    for row in rows[1:]:
        row[COLUMNS.index("answer")] = "yes"
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    assert set(read_sheets([path], QUERIES.get, PASSAGES.get)["typed.csv"].values()) == {"yes"}


def test_a_folder_or_a_pipe_in_place_of_a_sheet_is_refused_in_a_line(tmp_path):
    (tmp_path / "a.csv").mkdir()
    with pytest.raises(InputError, match="a.csv, field 'doubting.audit.human.sheets': a folder, not a file"):
        read_sheets([tmp_path / "a.csv"], QUERIES.get, PASSAGES.get)
    os.mkfifo(tmp_path / "b.csv")
    with pytest.raises(InputError, match="b.csv, field 'doubting.audit.human.sheets': a named pipe"):
        read_sheets([tmp_path / "b.csv"], QUERIES.get, PASSAGES.get)


def test_on_train_the_release_positive_is_each_querys_selected_positive(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from irdata.doubting.human_audit import selected_positives, sheet_inputs

    path = tmp_path / "train.parquet"
    pq.write_table(pa.table({"query_id": ["q0", "q1", "q2"], "positive_id": ["p30", None, "p1"]}), path)
    ids, selected = selected_positives(path)
    assert ids == ["q0", "q1", "q2"] and selected == {"q0": ["p30"], "q2": ["p1"]}
    s = {"split": "train", **draw_sample(ids, OFFICIAL, selected, 3, 0)}
    origins = {item["query_id"]: item["origins"] for item in s["items"].values() if "strict" in item["origins"]}
    assert set(origins) == {"q0", "q2"}  # q1 has no selected positive: its official one alone
    answers = {i: "yes" for i in s["items"]}
    r = human_results(s, read_sheets([filled(tmp_path, "a.csv", answers, s)], QUERIES.get, PASSAGES.get))
    text = human_audit_text(r)
    assert r["split"] == "train" and "3 train queries were drawn" in text
    assert "its selected positive (2 of them had one)" in text and "Selected positives: 2 of 2" in text
    inputs = sheet_inputs("train", "work/a", {"train_qrels": "t.qrels", "dev_qrels": "d.qrels"},
                          {"train": "t.tsv", "dev": "d.tsv"})
    assert inputs == {"ids": "work/a/train_queries/train.parquet", "release": "work/a/train_queries/train.parquet",
                      "official": "t.qrels", "queries": "t.tsv"}
    assert sheet_inputs("dev", "work/a", {"dev_qrels": "d.qrels"}, {"dev": "d.tsv"})["release"] == \
        "work/a/trec/dev.strict.qrels"
