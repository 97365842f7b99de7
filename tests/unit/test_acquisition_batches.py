"""An acquisition batch's id file either names queries of the build or is refused naming its file, line and key:
never does a user's batch silently become "every query in the default batch" (irdata/doubting/acquisition_batches.py).
"""

import json

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irdata.doubting.acquisition_batches import check_batches, run_check_acquisition_batches, unbatched
from irdata.errors import InputError

TRAIN = ["784277", "1000", "q-7", "55"]
DEV = ["d1", "d2"]
SPLIT_IDS = {"train": pa.array(TRAIN), "dev": pa.array(DEV)}
KEY = "doubting.acquisition_batches.train.batches[0].query_ids_file"


def batches(tmp_path, text: str | bytes, split: str = "train", *more: str) -> dict:
    """The config of one batch of `split` whose file holds `text` (and further batches of `more` texts)."""
    conf = {"train": {"default": "t"}, "dev": {"default": "d"}}
    conf[split]["batches"] = []
    for i, body in enumerate((text, *more)):
        path = tmp_path / f"batch{i}.txt"
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
        conf[split]["batches"].append({"name": f"b{i}", "query_ids_file": str(path)})
    return conf


def refusal(tmp_path, text, *more, split="train") -> InputError:
    with pytest.raises(InputError) as error:
        check_batches(batches(tmp_path, text, split, *more), SPLIT_IDS)
    return error.value


def test_a_batch_keeps_its_splits_queries_in_file_order_and_leaves_the_other_splits_out(tmp_path):
    record = check_batches(batches(tmp_path, b"\xef\xbb\xbf55\r\nd1\r\n\r\n784277\r\n"), SPLIT_IDS)
    assert record == {"train": {"default": "t", "batches": [
        {"name": "b0", "query_ids_file": str(tmp_path / "batch0.txt"), "ids": ["55", "784277"], "listed": 3,
         "other_split": 1}]}, "dev": {"default": "d", "batches": []}}


def test_an_id_written_as_a_spreadsheets_number_is_refused_with_the_query_it_meant(tmp_path):
    error = refusal(tmp_path, "55\n784277.0\n1000\n")
    assert (error.path, error.line, error.field) == (str(tmp_path / "batch0.txt"), 2, KEY)
    assert error.problem == ("id '784277.0' is no query of the build (neither a train nor a dev query); the query "
                             "'784277' written as a number (784277.0, a spreadsheet's number format?): save the column "
                             "as text; 1 of its 3 ids matches no query: every id must be a query id of the build")
    assert "the query '784277' written as a number (7.84277E+05" in refusal(tmp_path, "7.84277E+05\n").problem


@pytest.mark.parametrize("character, name", [("\u200b", "ZERO WIDTH SPACE"), ("\u2060", "WORD JOINER"),
                                             ("\u00ad", "SOFT HYPHEN")])
def test_an_invisible_character_is_named_with_the_query_it_hides(tmp_path, character, name):
    error = refusal(tmp_path, f"55\n1000{character}\n")
    assert error.line == 2 and error.field == KEY
    assert error.problem.startswith(f"id {'1000' + character!r} is no query of the build")
    assert f"it holds U+{ord(character):04X} {name} (character 5), which editors do not show: without it, it is " \
           "the query '1000'" in error.problem


def test_a_byte_order_mark_inside_an_id_is_refused_by_the_id_rule_under_the_batchs_key(tmp_path):
    # U+FEFF is no id character (irdata.tsv.ID_FORBIDDEN: two files joined with cat leave one mid-file)
    error = refusal(tmp_path, "55\n1000\ufeff\n")
    assert (error.line, error.field) == (2, KEY)
    assert "U+FEFF ZERO WIDTH NO-BREAK SPACE (character 5)" in error.problem


def test_ids_that_match_only_partly_are_refused_naming_the_first_and_the_count(tmp_path):
    error = refusal(tmp_path, "55\nnope\n1000\n\nnada\n")
    assert error.line == 2
    assert error.problem.startswith("id 'nope' is no query of the build")
    assert "2 of its 4 ids match no query" in error.problem


def test_an_empty_file_is_refused(tmp_path):
    error = refusal(tmp_path, "\n\n")
    assert (error.line, error.field) == (None, KEY)
    assert error.problem == "lists no query id; a batch needs the ids of its train queries, one a line"


def test_a_file_of_the_other_split_is_refused(tmp_path):
    error = refusal(tmp_path, "d1\nd2\n")
    assert error.problem == "none of its 2 ids is a train query (all are dev queries): list the file under " \
                            "acquisition_batches.dev"
    error = refusal(tmp_path, "55\n", split="dev")
    assert error.field == "doubting.acquisition_batches.dev.batches[0].query_ids_file"


def test_trailing_spaces_and_repeats_are_refused_by_line(tmp_path):
    assert refusal(tmp_path, "55\n1000 \n").line == 2
    assert refusal(tmp_path, "55\n1000\n55\n").line == 3


def test_a_query_in_two_batches_is_refused(tmp_path):
    error = refusal(tmp_path, "55\n", "1000\n55\n")
    assert (error.path, error.line) == (str(tmp_path / "batch1.txt"), 2)
    assert error.problem == "query '55' is also in acquisition batch 'b0'; a query belongs to one batch"


def test_a_folder_or_a_pipe_in_place_of_the_file_is_refused_in_a_line(tmp_path):
    import os

    conf = batches(tmp_path, "55\n")
    path = tmp_path / "batch0.txt"
    path.unlink()
    path.mkdir()
    with pytest.raises(InputError, match="batch0.txt: a folder, not a file"):
        check_batches(conf, SPLIT_IDS)
    path.rmdir()
    os.mkfifo(path)
    with pytest.raises(InputError, match="batch0.txt: a named pipe"):
        check_batches(conf, SPLIT_IDS)


def test_the_rule_reads_the_builds_queries_and_writes_the_record(tmp_path):
    (tmp_path / "train.tsv").write_text("".join(f"{q}\tquery {q}\n" for q in TRAIN))
    (tmp_path / "dev.tsv").write_text("".join(f"{q}\tquery {q}\n" for q in DEV))
    conf = batches(tmp_path, "1000\nd2\n")
    record = run_check_acquisition_batches(train_queries=str(tmp_path / "train.tsv"),
                                           dev_queries=str(tmp_path / "dev.tsv"),
                                           batch_files=[str(tmp_path / "batch0.txt")],
                                           checked=str(tmp_path / "checked.json"),
                                           settings={"acquisition_batches": conf})
    assert json.loads((tmp_path / "checked.json").read_text()) == record
    assert record["train"]["batches"][0]["ids"] == ["1000"]


def test_assemble_without_the_record_of_listed_batches_is_refused(tmp_path):
    assert unbatched({"train": {"default": "t"}, "dev": {"default": "d", "batches": []}}) == {
        "train": {"default": "t", "batches": []}, "dev": {"default": "d", "batches": []}}
    with pytest.raises(ValueError, match="check_acquisition_batches"):
        unbatched(batches(tmp_path, "55\n"))


# any id of the file spoiled as editors and spreadsheets spoil them: refused at that id's line, never assigned
ids = st.lists(st.text("abcdefgh0123456789-", min_size=1, max_size=5), min_size=1, max_size=8, unique=True)
spoilers = st.sampled_from([lambda q: q + "\u200b", lambda q: "\u200b" + q, lambda q: q + "\ufeff",
                            lambda q: q[:1] + "\u200d" + q[1:], lambda q: q + ".0", lambda q: q + "\u00ad"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(queries=ids, data=st.data())
def test_a_spoiled_id_is_refused_at_its_line(tmp_path, queries, data):
    listed = data.draw(st.lists(st.sampled_from(queries), min_size=1, unique=True))
    spoiled = data.draw(st.integers(0, len(listed) - 1))
    spoil = data.draw(spoilers)
    blank = data.draw(st.lists(st.booleans(), min_size=len(listed), max_size=len(listed)))
    lines, line_of = [], {}
    for i, (q, gap) in enumerate(zip(listed, blank)):
        lines += [""] * gap
        lines.append(spoil(q) if i == spoiled else q)
        line_of[i] = len(lines)
    (tmp_path / "b.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    conf = {"train": {"default": "t", "batches": [{"name": "b", "query_ids_file": str(tmp_path / "b.txt")}]},
            "dev": {"default": "d"}}
    with pytest.raises(InputError) as error:
        check_batches(conf, {"train": pa.array(queries), "dev": pa.array(["other"])})
    assert error.value.line == line_of[spoiled] and error.value.path == str(tmp_path / "b.txt")
    # a BOM is no id character at all (irdata.tsv.ID_FORBIDDEN); the others are ids of no query
    assert error.value.problem.startswith((f"id {spoil(listed[spoiled])!r} is no query of the build",
                                           f"id {spoil(listed[spoiled])!r} holds U+FEFF"))
