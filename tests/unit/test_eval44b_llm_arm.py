"""The 44b LLM arm against the tests' fault-injecting server (tests/model_server.py, real HTTP on 127.0.0.1; it
proves nothing about grades): a failed grade is a failure of a named kind, never a score or a rank; the
arm's record is an LLM job's stats, whose retry state makes a rerun retry exactly the failed calls; the
package holds the failures to annotation.failure_limits.grade, stopping before any file is written or,
with accept_llm_failures, publishing the arm with its failures counted and its metrics withheld."""

import json
from collections import Counter
from pathlib import Path

import pytest

from irdata.annotate.common import llm_params
from irdata.annotate.retry import retry_generation
from irdata.doubting.gate import ReleaseGateError
from irdata.eval44b.arms import score_arm
from irdata.eval44b.llm_arm import LlmScorer, arm_job
from irdata.eval44b.metrics import METRICS
from irdata.eval44b.score import run_arm
from irdata.prompts import Prompt
from model_server import ModelServer
from unit.test_eval44b_package import build_in

REPO = Path(__file__).resolve().parents[2]
PROMPT = REPO / "prompts/grade_44b_pair.txt"
COMMON = {"query_chars": 600, "document_chars": 900, "seed": 0, "negatives": 2, "record_timing": False}
DOCS = {f"a:{i}": f"Paper {i}. An abstract about topic {i} and method {i * 7}." for i in range(6)}
ROWS = [{"note_id": f"q{i}", "positive": f"a:{i}", "negatives": [{"key": f"a:{(i + d) % 6}"} for d in (1, 2)]}
        for i in range(6)]
QUERIES = {f"q{i}": f"A review of the paper on topic {i}." for i in range(6)}


@pytest.fixture
def server():
    s = ModelServer()
    yield s
    s.close()


def arm_settings(server, folder: Path, retry_state=None) -> dict:
    """The LLM arm's settings as score_arms passes them: one attempt per call (no retries, no re-asking of an
    unparseable grade, no breaker: each request the server logs is one call and its fault is the call's)."""
    llm = {"backend": "openai", "model": "arm", "base_urls": [server.url], "max_retries": 0, "grade_retries": 0,
           "backoff_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 2, "breaker_failures": 10_000,
           "grade_constraint": "none", "journal_dir": str(folder / "journal"), "extra_body": {}}
    retry_state = retry_state or folder / "retry.json"
    return {**COMMON, "kind": "llm", "llm": {"enabled": True, "max_queries": None},
            "llm_answer": llm_params(llm, "arm44b"), "llm_config": llm, "prompt": str(PROMPT),
            "retry_state": str(retry_state), "retry": retry_generation(retry_state)}


def arm_job_args(settings: dict) -> dict:
    """run_arm's settings, prompts and LLM job as score_arms passes them."""
    return {"settings": settings, "prompts": {"pair": Prompt(PROMPT)}, "job": arm_job(settings)}


def grade_faults(server) -> Counter:
    kinds = {"500": "http_500", "garbage": "unparseable"}
    return Counter(kinds[r.fault] for r in server.received("grade") if r.fault)


def test_each_failed_grade_is_counted_by_kind_and_its_query_is_left_unranked(server, tmp_path):
    server.faults = {"500": 0.15, "garbage": 0.15}
    settings = arm_settings(server, tmp_path)
    scorer = LlmScorer(arm_job(settings), PROMPT)
    try:
        result = score_arm("llm", ROWS, QUERIES, DOCS, settings, scorer=scorer)
    finally:
        scorer.close()
    failures = result["failures"]
    assert len(server.received("grade")) == failures["total"] == 3 * len(ROWS)  # one call per candidate
    faults = grade_faults(server)
    assert failures["by_kind"] == dict(faults) and failures["failed"] == sum(faults.values())
    assert failures["by_kind"].keys() == {"http_500", "unparseable"}
    assert failures["retryable"] == failures["by_kind"]["http_500"]  # an unparseable reply would be replayed
    # a query is ranked only when its three grades all parsed; the others are counted, not ranked by tie order
    assert 0 < result["queries"] < len(ROWS) and result["queries"] + result["queries_unranked"] == len(ROWS)
    assert len(result["ranks"]) == result["queries"] and result["metrics"]["P@1"] is not None


def test_a_server_failing_every_call_gives_no_rank_and_no_metric(server, tmp_path):
    server.faults = {"500": 1.0}
    result = run_arm(arm="llm", **tiny_inputs(tmp_path), result=tmp_path / "llm.json",
                     **arm_job_args(arm_settings(server, tmp_path)))
    assert result["failures"]["by_kind"] == {"http_500": 18} and result["queries_unranked"] == 6
    assert result["queries"] == 0 and result["ranks"] == [] and set(result["metrics"].values()) == {None}
    # the record is the job's stats (the gate reads it) and its retry state asks for a rerun
    record = json.loads((tmp_path / "llm.json").read_text())
    assert record["stage"] == "arm44b" and record["failures"] == result["failures"] and "tokens" in record["llm"]
    assert retry_generation(tmp_path / "retry.json") == 1


def tiny_inputs(folder: Path):
    """{mined, queries, collection}: the files of ROWS, QUERIES and DOCS."""
    mined, queries, collection = folder / "mined.jsonl", folder / "queries.jsonl", folder / "papers.tsv"
    mined.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    queries.write_text("".join(json.dumps({"note_id": q, "text": t}) + "\n" for q, t in QUERIES.items()))
    collection.write_text("".join(f"{k}\t{t}\n" for k, t in DOCS.items()))
    return {"mined": mined, "queries": queries, "collection": collection}


def test_a_rerun_retries_exactly_the_failed_calls(server, tmp_path):
    server.faults = {"500": 0.3}
    state = tmp_path / "retry.json"
    first = run_arm(arm="llm", **tiny_inputs(tmp_path), result=tmp_path / "llm.json",
                    **arm_job_args(arm_settings(server, tmp_path, state)))
    failed = {r.key for r in server.received("grade") if r.fault}
    assert first["failures"]["failed"] == len(failed) > 0 and retry_generation(state) == 1
    seen = len(server.log)

    server.faults = {}
    again = run_arm(arm="llm", **tiny_inputs(tmp_path), result=tmp_path / "llm.json",
                    **arm_job_args(arm_settings(server, tmp_path, state)))
    assert {r.key for r in server.log[seen:]} == failed  # the journal answered every other call
    assert again["failures"]["failed"] == 0 and again["queries"] == len(ROWS)
    assert retry_generation(state) == 1  # nothing left to retry: the next plain run reruns nothing


def release_lines(out) -> dict:
    return {name: Path(out[name]).read_text() for name in ("results", "ranks", "card", "manifest")}


def test_an_llm_arm_over_the_limit_stops_the_package_before_any_file(server, tmp_path, monkeypatch):
    server.faults = {"500": 1.0}
    with pytest.raises(ReleaseGateError) as caught:
        build_in(tmp_path / "a", monkeypatch, llm_arm=arm_settings(server, tmp_path))
    message = str(caught.value)
    assert "grade (44b arm llm):" in message and "pairs failed (100.00%)" in message
    assert "annotation.failure_limits.grade" in message and "commonest: http_500" in message
    assert "a plain rerun of the same command repeats only the failed calls" in message
    assert "--config accept_llm_failures=true" in message
    assert not (tmp_path / "a/release").exists()  # nothing written, not even the test split


def test_accepted_over_the_limit_the_arm_is_published_with_its_failures_and_no_metric(server, tmp_path, monkeypatch):
    server.faults = {"500": 0.05}  # most queries keep their 9 grades: ranked, and still withheld
    manifest, out = build_in(tmp_path / "a", monkeypatch, llm_arm=arm_settings(server, tmp_path),
                             llm_gate={"limit": 0.005, "accept": True})
    results = {r["arm"]: r for r in map(json.loads, open(out["results"]))}
    llm = results["llm"]
    assert all(llm[m] is None for m in METRICS) and llm["queries"] > 0  # ranked queries exist, and are withheld
    assert "over annotation.failure_limits.grade (0.50%)" in llm["metrics_withheld"]
    assert llm["failures"]["failed"] == sum(grade_faults(server).values()) > 0
    assert llm["failures"]["by_kind"] == {"http_500": llm["failures"]["failed"]}
    assert "failures" not in results["bm25"] and results["bm25"]["P@1"] is not None
    assert not [r for r in map(json.loads, open(out["ranks"])) if r["arm"] == "llm"]  # they would give the metrics
    gate = manifest["scoring"]["llm_failures"]
    assert gate["accepted"] and gate["over_limit"] and gate["arms"]["llm"]["failed"] == llm["failures"]["failed"]
    card = Path(out["card"]).read_text()
    row = next(line for line in card.splitlines() if line.startswith("| — | LLM pointwise grade"))
    assert row.split(" | ")[2:7] == ["—"] * 5
    f = llm["failures"]
    assert f"LLM failures of the llm arm: {f['failed']} of {f['total']} graded pairs failed (http_500" in card
    assert "its metrics are withheld" in card


def test_within_the_limit_the_arm_is_reported_with_its_count(server, tmp_path, monkeypatch):
    manifest, out = build_in(tmp_path / "a", monkeypatch, llm_arm=arm_settings(server, tmp_path))
    llm = next(r for r in map(json.loads, open(out["results"])) if r["arm"] == "llm")
    assert llm["failures"]["failed"] == 0 and llm["failures"]["total"] == 9 * llm["queries"] > 0
    assert llm["queries_unranked"] == 0 and llm["metrics_withheld"] is None and llm["P@1"] is not None
    ranks = [r for r in map(json.loads, open(out["ranks"])) if r["arm"] == "llm"]
    assert len(ranks) == llm["queries"]
    assert manifest["scoring"]["llm_failures"]["accepted"] is False
    assert f"LLM failures of the llm arm: 0 of {llm['failures']['total']} graded pairs failed; 0 queries" in (
        Path(out["card"]).read_text())


def llm_line(out) -> dict:
    return next(r for r in map(json.loads, open(out["results"])) if r["arm"] == "llm")


def llm_row(out) -> list[str]:
    """The LLM arm's cells of the card's Performance table."""
    card = Path(out["card"]).read_text()
    return next(line for line in card.splitlines() if "LLM pointwise grade" in line and line.startswith("|")).split(
        " | ")


def test_a_rebuild_from_the_journal_gives_no_replayed_time_as_the_models_speed(server, tmp_path, monkeypatch):
    """ms/query is measured on calls made in the build: a build whose LLM journal answered some queries times the
    others only, one that it answered whole gives no speed and says it was replayed; results.jsonl, the
    manifest, the card and croissant.json agree."""
    timed = {**arm_settings(server, tmp_path), "record_timing": True}
    # a first build of 3 queries fills the journal (tmp_path/journal) with their calls
    _, out = build_in(tmp_path / "a", monkeypatch, llm_arm={**timed, "llm": {"enabled": True, "max_queries": 3}})
    first = llm_line(out)
    made = len(server.received("grade"))
    # the two reviews of a paper here have the same text: the second one's calls of the same papers are answered
    # by the first one's, from the journal, in this same build
    assert 0 < made < 27 and first["queries_replayed"] < 3 and first["ms_per_query"] > 0

    # all queries: the first 3 are answered from the journal, and more are called and timed
    manifest, out = build_in(tmp_path / "b", monkeypatch, llm_arm=timed)
    llm = llm_line(out)
    scored, replayed = llm["queries"] + llm["queries_unranked"], llm["queries_replayed"]
    assert len(server.received("grade")) > made
    assert 3 <= replayed < scored and llm["ms_per_query"] > 0
    assert manifest["scoring"]["queries_replayed"] == {"llm": replayed}
    assert llm_row(out)[7] == f"{llm['ms_per_query']:.1f}"
    card = " ".join(Path(out["card"]).read_text().split())
    assert (f"Timing of the llm arm: {replayed} of its {scored} queries had grades answered from the LLM journal "
            "(identical calls made before, by an earlier build or earlier in this one) rather than by calls made for "
            f"them. A journal answer measures no model speed, so its ms/query is the wall time of the other "
            f"{scored - replayed} queries, whose calls were all made in this build.") in card

    # a rebuild with the journal kept: every call is a journal hit, and no time is given as the model's
    calls = len(server.received("grade"))
    manifest, out = build_in(tmp_path / "c", monkeypatch, llm_arm=timed)
    llm = llm_line(out)
    assert len(server.received("grade")) == calls
    assert llm["queries_replayed"] == scored and llm["ms_per_query"] is None
    assert manifest["scoring"]["queries_replayed"] == {"llm": scored}
    assert llm_row(out)[7] == "— (replayed)"
    card = " ".join(Path(out["card"]).read_text().split())
    assert (f"Timing of the llm arm: {scored} of its {scored} queries had grades answered from the LLM journal") in card
    assert "A journal answer measures no model speed, so its ms/query is not given." in card
    assert "move that journal (score_arms-llm.jsonl in llm.journal_dir) away" in card
    # the other arms make no LLM call: nothing replayed, nothing said
    others = [r for r in map(json.loads, open(out["results"])) if r["arm"] != "llm"]
    assert others and not any("queries_replayed" in r for r in others)
    fields = {f["name"]: f for rs in json.loads(Path(out["croissant"]).read_text())["recordSet"] if rs["name"] ==
              "results" for f in rs["field"]}
    assert "replayed from the LLM journal" in fields["ms_per_query"]["description"]
    assert "queries_replayed" in fields


def test_without_timing_a_rebuild_from_the_journal_is_byte_identical(server, tmp_path, monkeypatch):
    """record_timing false promises byte-identical rebuilds: which queries the journal answered is timing's note,
    left out with it."""
    _, first = build_in(tmp_path / "a", monkeypatch, llm_arm=arm_settings(server, tmp_path))
    calls = len(server.received("grade"))
    _, again = build_in(tmp_path / "b", monkeypatch, llm_arm=arm_settings(server, tmp_path))
    assert len(server.received("grade")) == calls  # every call answered from the journal
    for name in ("results", "manifest", "card"):  # build_in's paths are relative to its folder
        assert (tmp_path / "b" / again[name]).read_bytes() == (tmp_path / "a" / first[name]).read_bytes(), name
    assert "queries_replayed" not in llm_line(again) and llm_row(again)[7] == "—"
