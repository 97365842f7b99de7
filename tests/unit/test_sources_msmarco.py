"""Real MS MARCO inputs without hand work: every reference answers format MS MARCO ships is detected and
read, and qrels rows whose passage is not in the collection are an error or, on request, dropped and
counted; the checked files are what later stages read."""

import json
import shutil
from pathlib import Path

import pytest
import yaml
from snakemake.utils import update_config

from irdata.errors import InputError
from irdata.grade_scale import GRADES
from irdata.qrels_files import check_qrels
from irdata.query_files import read_queries
from irdata.reference_answers import NO_ANSWER, read_reference_answers
from irdata.sources.msmarco import answers_of_dev_queries, read_collection, validate_msmarco_inputs
from irdata.sources.msmarco import heldout_files as msmarco_heldout_files
from irdata.tsv import read_trec_qrels

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "resources/demo"
SHARED = REPO.parent / "shared/data/msmarco-passage-sample"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/msmarco-passage-sample")


def demo_answers() -> dict:
    return {r["query_id"]: r["answers"] for r in map(json.loads, (DEMO / "answers.dev.small.jsonl").open())}


def qna_v21(answers: dict) -> dict:
    """The shape of the MS MARCO QnA v2.1 JSON: every field keyed by row, ids as integers."""
    rows = {str(i): (qid, values) for i, (qid, values) in enumerate(answers.items())}
    return {"query_id": {r: int(q) for r, (q, _) in rows.items()},
            "answers": {r: v or [NO_ANSWER] for r, (_, v) in rows.items()},
            "query": {r: f"query {q}" for r, (q, _) in rows.items()},
            "passages": {r: [{"is_selected": 0, "passage_text": "x", "url": "u"}] for r in rows},
            "query_type": {r: "DESCRIPTION" for r in rows},
            "wellFormedAnswers": {r: "[]" for r in rows}}


@pytest.mark.parametrize("indent", [None, 2])
def test_qna_v21_json_is_detected_and_converted(tmp_path, indent):
    answers = {"1102432": ["Blue."], "5": [], "7": ["a", "b"]}
    path = tmp_path / "dev_v2.1.json"
    path.write_text(json.dumps(qna_v21(answers), indent=indent))
    assert read_reference_answers(path) == answers


def test_jsonl_formats_project_v11_keys_and_v11_records(tmp_path):
    ours = tmp_path / "ours.jsonl"
    ours.write_text('{"query_id": "12", "answers": ["x"]}\n\n{"query_id": 13, "answers": ["No Answer Present."]}\n')
    assert read_reference_answers(ours) == {"12": ["x"], "13": []}
    v11 = tmp_path / "v11.jsonl"
    v11.write_text('{"query_id_v1_1": 9652, "answers": ["$15,000"]}\n{"query_id_v1_1": 9666, "answers": []}\n')
    assert read_reference_answers(v11) == {"9652": ["$15,000"], "9666": []}
    records = tmp_path / "dev_v1.1.json"
    records.write_text(json.dumps({"answers": ["y"], "passages": [{"passage_text": "p", "is_selected": 1}],
                                   "query": "q", "query_id": 19699, "query_type": "numeric"}) + "\n")
    assert read_reference_answers(records) == {"19699": ["y"]}


@pytest.mark.parametrize("obj, field, words", [
    ({"query_id": {"0": 1, "1": 2}, "answers": {"0": ["a"]}}, "answers", "row '1' has a query_id but no answers"),
    ({"query_id": {"0": 1}, "answers": {"0": "a"}}, "answers", "row '0': answers must be a list of strings"),
    ({"query_id": {"0": 1.5}, "answers": {"0": ["a"]}}, "query_id", "row '0': query_id must be"),
    ({"query_id": {"0": 1, "1": 1}, "answers": {"0": ["a"], "1": ["b"]}}, "query_id", "duplicate query_id '1'"),
])
def test_qna_v21_errors_name_row_and_field(tmp_path, obj, field, words):
    path = tmp_path / "dev_v2.1.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(InputError) as info:
        read_reference_answers(path)
    assert info.value.field == field and words in str(info.value) and str(path) in str(info.value)


@needs_shared
def test_real_qna_v11_file_reads_and_is_refused_for_passage_ranking_dev_ids():
    path = SHARED / "qna/qna_v1.1_dev_reference_answers.jsonl"
    answers = read_reference_answers(path)
    assert len(answers) == 10_047 and answers["9652"] == ["Approximately $15,000 per year."]
    assert sum(1 for a in answers.values() if not a) == 293
    dev = read_queries(SHARED / "queries.dev.small.insample.tsv").column("query_id").to_pylist()
    with pytest.raises(InputError) as info:
        answers_of_dev_queries(path, "queries.dev.small.insample.tsv", dev)
    assert "MS MARCO QnA v1.1 ids, not the query ids of" in str(info.value)
    assert "(1 of its 33 ids occur in the file by coincidence" in str(info.value)


def test_answers_of_another_query_set_are_refused(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"query_id": "7", "answers": ["x"]}\n')
    with pytest.raises(InputError, match="none of its 1 answers is for a query of dev.tsv"):
        answers_of_dev_queries(path, "dev.tsv", ["1", "2"])


def test_answers_of_other_queries_are_ignored_and_counted(tmp_path):
    path = tmp_path / "a.jsonl"
    path.write_text('{"query_id": "1", "answers": ["x"]}\n{"query_id": "2", "answers": []}\n'
                    '{"query_id": "99", "answers": ["other"]}\n')
    answers, counts = answers_of_dev_queries(path, "dev.tsv", ["2", "1", "3"])
    assert list(answers) == ["2", "1"] and answers["1"] == ["x"]
    assert counts == {"dev_answers": 2, "dev_answers_other_queries": 1, "dev_queries_without_answer": 2}


def demo_inputs(root: Path, **replace) -> dict:
    files = {"collection": "collection.tsv", "train_queries": "queries.train.tsv", "train_qrels": "qrels.train.tsv",
             "dev_queries": "queries.dev.small.tsv", "dev_qrels": "qrels.dev.small.tsv",
             "dev_answers": "answers.dev.small.jsonl"}
    out = {}
    for key, name in files.items():
        out[key] = root / name
        shutil.copyfile(DEMO / name, out[key])
    out.update(replace)
    out["heldout_queries"] = held_out(out, DEMO / "queries.test.tsv")
    return out


def held_out(inputs: dict, *listed) -> list:
    """The held-out sources of a build of `inputs` that lists the files `listed` (its dev queries first)."""
    return msmarco_heldout_files({"dev_queries": str(inputs["dev_queries"]), "heldout_queries": list(map(str, listed)),
                                  "audit": {"queries": None}})


def checked_paths(root: Path) -> dict:
    return {"train_qrels": root / "c/train.qrels", "dev_qrels": root / "c/dev.qrels",
            "dev_answers": root / "c/dev_answers.jsonl", "heldout_queries": root / "c/heldout.queries.tsv"}


def test_validation_writes_the_same_checked_answers_from_the_qna_v21_file(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    validate_msmarco_inputs(**demo_inputs(a), checked=checked_paths(a))
    qna = b / "dev_v2.1.json"
    qna.write_text(json.dumps(qna_v21({**demo_answers(), "424242": ["not a dev query"]})))
    report = validate_msmarco_inputs(**demo_inputs(b, dev_answers=qna), checked=checked_paths(b))
    assert (a / "c/dev_answers.jsonl").read_bytes() == (b / "c/dev_answers.jsonl").read_bytes()
    assert report["rows"]["dev_answers"] == len(demo_answers()) and report["rows"]["dev_answers_other_queries"] == 1
    assert read_reference_answers(b / "c/dev_answers.jsonl") == {
        q: v for q, v in demo_answers().items() if q in set(read_queries(DEMO / "queries.dev.small.tsv")
                                                                .column("query_id").to_pylist())}
    # the checked qrels hold the same rows as the raw ones when nothing is dropped
    for split in ("train", "dev"):
        raw = read_trec_qrels(a / ("qrels.train.tsv" if split == "train" else "qrels.dev.small.tsv"))
        assert read_trec_qrels(a / f"c/{split}.qrels").equals(raw)
        assert report["qrels_dropped"][split] == 0


def test_qrels_passage_missing_from_collection_error_or_drop(tmp_path):
    inputs = demo_inputs(tmp_path)
    raw = inputs["train_qrels"].read_text()
    inputs["train_qrels"].write_text(raw + "1185869\t0\tnot-a-passage\t1\n")
    missing_line = len(raw.splitlines()) + 1
    with pytest.raises(InputError) as info:
        validate_msmarco_inputs(**inputs)
    err = info.value
    assert (err.line, err.field) == (missing_line, "passage_id") and "qrels_missing_passages: drop" in str(err)
    report = validate_msmarco_inputs(**inputs, qrels_missing_passages="drop", checked=checked_paths(tmp_path))
    assert report["qrels_dropped"] == {"train": 1, "dev": 0}
    checked = read_trec_qrels(tmp_path / "c/train.qrels")
    assert checked.num_rows == report["rows"]["train_qrels"] == len(raw.splitlines())
    assert "not-a-passage" not in checked.column("passage_id").to_pylist()
    # a query missing from the queries stays an error when dropping passages
    known_pid = (DEMO / "collection.tsv").read_text().split("\t", 1)[0]
    inputs["train_qrels"].write_text(raw + f"no-such-query\t0\t{known_pid}\t1\n")
    with pytest.raises(InputError) as info:
        validate_msmarco_inputs(**inputs, qrels_missing_passages="drop")
    assert info.value.field == "query_id"


@needs_shared
def test_drop_on_real_dev_small_qrels_against_a_collection_sample():
    """The real sample holds 26,689 MS MARCO passages; the dev small qrels name 7,437 positives, most of
    them outside it: drop keeps exactly those inside (the sample's README: 35)."""
    collection = SHARED / "collection.tsv"
    pids = read_collection(collection).column("passage_id")
    qrels_path = SHARED / "qrels.dev.small.txt"
    queries = read_queries(SHARED / "queries.dev.small.tsv").column("query_id")
    with pytest.raises(InputError):
        check_qrels(qrels_path, read_trec_qrels(qrels_path), pids, collection, queries, "queries.dev.small.tsv")
    kept, dropped = check_qrels(qrels_path, read_trec_qrels(qrels_path), pids, collection, queries,
                                "queries.dev.small.tsv", "drop")
    assert kept.num_rows == 35 and dropped == 7_437 - 35
    other = SHARED / "qrels.dev.small.insample.txt"
    assert sorted(kept.column("passage_id").to_pylist()) == sorted(read_trec_qrels(other)
                                                                   .column("passage_id").to_pylist())


def test_all_rows_dropped_is_an_error(tmp_path):
    inputs = demo_inputs(tmp_path)
    inputs["dev_qrels"].write_text("".join(f"{line.split()[0]}\t0\tgone{i}\t1\n"
                                           for i, line in enumerate(inputs["dev_qrels"].read_text().splitlines())))
    with pytest.raises(InputError, match="all .* dropped"):
        validate_msmarco_inputs(**inputs, qrels_missing_passages="drop")


def merged(*files) -> dict:
    config = {}
    for name in files:
        update_config(config, yaml.safe_load((REPO / name).read_text()))
    return config


def test_production_overlay_is_valid_and_keeps_no_demo_budget():
    """config/production.yaml layered over config.yaml (as Snakemake merges them): valid, MS MARCO ids,
    the card's budgets rather than the demo's short ones, and the demo's audit set replaced."""
    from demo_config import demo_build, workflow_builds

    config = merged("config.yaml", "config/production.yaml")
    builds = workflow_builds(config)
    assert list(builds) == ["msmarco"]  # the demo's build is left out
    demo_budgets = merged("config.yaml")["annotation"]["agent"]
    for split, depth in (("train", 60), ("dev", 400)):
        budget = config["annotation"]["agent"][split]
        assert budget["max_proposals"] == depth and budget["max_turns"] > demo_budgets[split]["max_turns"]
    doubting = builds["msmarco"]["doubting"]
    assert "resources/demo" not in json.dumps(doubting)
    assert doubting["ids_refer_to"] == "msmarco-v1" and config["queries"] == "all"
    production = merged("config/production.yaml")
    assert doubting["train_sample"]["size"] is None or "train_sample" not in production
    demo = demo_build()["doubting"]
    assert demo["ids_refer_to"] == "collection" and "not MS MARCO" in demo["corpus_description"]


def _append(path: Path, data: bytes) -> int:
    """Append `data` to `path`; the line number of its first line."""
    raw = path.read_bytes()
    path.write_bytes(raw + data)
    return raw.count(b"\n") + 1


@pytest.mark.parametrize("key, data, field, words", [
    ("collection", b"999999\tpassage with a NUL \x00 inside\n", "text", "a NUL byte (byte 27 of the line)"),
    ("collection", b"999998 \tpadded id\n", "passage_id", "U+0020 SPACE"),
    ("train_queries", b"77 1\twhat breaks a TREC run line\n", "query_id", "query_id '77 1' holds U+0020 SPACE"),
    ("dev_queries", b"88\twhat is \x00\n", "text", "a NUL byte (byte 12 of the line)"),
    ("dev_queries", b"89\ta lone\rcarriage return\n", "text", "a carriage return (byte 10 of the line)"),
    ("train_qrels", "1185869\u00a0\t0\t7\t1\n".encode(), "query_id", "U+00A0 NO-BREAK SPACE"),
    ("dev_qrels", b"1117329\t0\t10897\t1\r600793\t0\t1947\t1\n", "relevance", "a carriage return"),
    ("heldout_queries", b"90\x1b\tan escape in an id\n", "query_id", "U+001B"),
])
def test_input_that_would_break_a_released_file_is_refused_and_nothing_is_written(tmp_path, key, data, field,
                                                                                  words):
    """Each input: its line, field and the character named, and none of the check's outputs written (the
    heldout queries are read last)."""
    inputs = demo_inputs(tmp_path)
    if key == "heldout_queries":
        target = tmp_path / "queries.test.tsv"
        shutil.copyfile(DEMO / "queries.test.tsv", target)
        inputs["heldout_queries"] = held_out(inputs, target)
    else:
        target = inputs[key]
    line = _append(target, data)
    checked, store = checked_paths(tmp_path), tmp_path / "store.arrow"
    with pytest.raises(InputError) as info:
        validate_msmarco_inputs(**inputs, checked=checked, passage_store=store)
    err = info.value
    assert (err.path, err.line, err.field) == (str(target), line, field)
    assert words in str(err) and f"{target}, line {line}, field {field!r}" in str(err)
    assert not store.exists() and not any(p.exists() for p in checked.values())


def test_demo_inputs_pass_the_check_unchanged(tmp_path):
    report = validate_msmarco_inputs(**demo_inputs(tmp_path), checked=checked_paths(tmp_path),
                                     passage_store=tmp_path / "store.arrow")
    assert report["rows"]["collection"] == 1624 and report["rows"]["train_queries"] == 167
    assert report["qrels_dropped"] == {"train": 0, "dev": 0}
    audit = read_trec_qrels(DEMO / "audit.qrels.tsv", GRADES)
    assert audit.num_rows == 118 and set(audit.column("relevance").to_pylist()) <= set(GRADES)


@needs_shared
def test_real_sample_files_pass_the_readers():
    """Every MS MARCO-format file of the real sample reads (graded qrels as grades 0-3), at its row count."""
    rows = {path.name: read_queries(path).num_rows for path in sorted(SHARED.glob("queries.*.tsv"))}
    assert rows["queries.dev.small.tsv"] == 6_980 and rows["queries.dl19.tsv"] == 43
    assert read_collection(SHARED / "collection.tsv").num_rows == 26_689
    for path in sorted(SHARED.glob("qrels.*.txt")):
        qrels = read_trec_qrels(path, GRADES if "graded" in path.name else None)
        assert qrels.num_rows > 0
    assert read_trec_qrels(SHARED / "qrels.dl19.graded.txt", GRADES).num_rows == 9_260


def test_a_collection_with_a_header_line_reads_its_passages_and_counts_the_header(tmp_path):
    """A `pid<TAB>text` header (pandas' to_csv writes one) is no passage called "pid": skipped, counted in the
    report, and the line numbers after it are right."""
    inputs = demo_inputs(tmp_path)
    inputs["collection"].write_bytes(b"pid\ttext\n" + inputs["collection"].read_bytes())
    report = validate_msmarco_inputs(**inputs, passage_store=tmp_path / "store.arrow")
    assert report["rows"]["collection"] == 1624
    assert report["header_lines"] == {str(inputs["collection"]): 1}
    from irdata.passage_store import PassageStore

    assert PassageStore(tmp_path / "store.arrow").get("pid") is None


def test_an_unknown_query_after_dropped_rows_names_its_own_line(tmp_path):
    inputs = demo_inputs(tmp_path)
    raw = inputs["train_qrels"].read_text()
    known_pid = (DEMO / "collection.tsv").read_text().split("\t", 1)[0]
    inputs["train_qrels"].write_text("1185869\t0\tgone\t1\n" + raw + f"no-such-query\t0\t{known_pid}\t1\n")
    with pytest.raises(InputError) as info:
        validate_msmarco_inputs(**inputs, qrels_missing_passages="drop")
    assert (info.value.line, info.value.field) == (len(raw.splitlines()) + 2, "query_id")


def _pipe(data: bytes) -> str:
    """A path that reads `data` once, as `<(zcat dev_v2.1.json.gz)` does (a small `data`: the pipe holds it)."""
    import os

    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return f"/dev/fd/{read_end}"


@pytest.mark.parametrize("indent", [None, 2])
def test_reference_answers_are_read_once_from_gzip_or_a_pipe(tmp_path, indent):
    """MS MARCO ships dev_v2.1.json.gz; the format is told from the first line and the rest read on from there, so
    a pipe gives what the file gives."""
    import gzip

    answers = {"1102432": ["Blue."], "5": [], "7": ["a", "b"]}
    qna = json.dumps(qna_v21(answers), indent=indent).encode()
    lines = b"".join(json.dumps({"query_id": q, "answers": a}).encode() + b"\n" for q, a in answers.items())
    for data in (qna, lines):
        path = tmp_path / "dev_v2.1.json.gz"
        path.write_bytes(gzip.compress(data))
        assert read_reference_answers(path) == answers
        assert read_reference_answers(_pipe(data)) == answers
        assert read_reference_answers(_pipe(gzip.compress(data))) == answers
    path = _pipe(b'{"query_id": "1", "answers": ["a"]}\n\n{"query_id": "1", "answers": []}\n')
    with pytest.raises(InputError) as info:
        read_reference_answers(path)
    assert (info.value.path, info.value.line, info.value.field) == (path, 3, "query_id")


def test_gzip_inputs_are_checked_as_their_plain_twins(tmp_path):
    """Every MS MARCO input compressed (the names ending .gz or not): the same rows, header lines and checked
    files as from the plain ones; the report's sha256 is of the file as given."""
    import gzip

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    plain = validate_msmarco_inputs(**demo_inputs(a), checked=checked_paths(a), passage_store=a / "store.arrow")
    inputs = demo_inputs(b)
    for i, key in enumerate(("collection", "train_queries", "train_qrels", "dev_queries", "dev_qrels", "dev_answers")):
        packed = inputs[key].with_name(inputs[key].name + (".gz" if i % 2 else ""))
        data = inputs[key].read_bytes()
        inputs[key].unlink()
        packed.write_bytes(gzip.compress(b"qid\tQ0\tdocid\trel\n" + data if key == "train_qrels" else data))
        inputs[key] = packed
    inputs["heldout_queries"] = held_out(inputs, DEMO / "queries.test.tsv")  # the dev queries under their new name
    report = validate_msmarco_inputs(**inputs, checked=checked_paths(b), passage_store=b / "store.arrow")
    def by_role(rows):  # the held-out files' rows are keyed by their paths, which differ
        return {key: value for key, value in rows.items() if not key.startswith("heldout:")}, \
            sorted(value for key, value in rows.items() if key.startswith("heldout:"))

    assert by_role(report["rows"]) == by_role(plain["rows"])
    assert report["header_lines"] == {str(inputs["train_qrels"]): 1}
    for name in ("c/train.qrels", "c/dev.qrels", "c/dev_answers.jsonl", "store.arrow"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_a_named_pipe_in_the_input_check_is_refused_before_it_is_opened(tmp_path):
    """The check reads every input twice (its records, its sha256): a pipe is refused at once, naming it (an open
    of a named pipe without a writer would wait for ever; the alarm turns that into a failure)."""
    import os
    import signal

    inputs = demo_inputs(tmp_path)
    fifo = tmp_path / "answers.fifo"
    os.mkfifo(fifo)
    inputs["dev_answers"] = fifo
    signal.signal(signal.SIGALRM, lambda *_: pytest.fail("the check opened the named pipe"))
    signal.alarm(30)
    try:
        with pytest.raises(InputError) as info:
            validate_msmarco_inputs(**inputs)
    finally:
        signal.alarm(0)
    assert info.value.path == str(fifo) and "a pipe or a device, not a file" in info.value.problem
