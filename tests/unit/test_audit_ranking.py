"""The label audit's system-ranking agreement (irdata/doubting/audit_ranking.py): runs evaluated under the
human grades and the model's grades of the same judged pairs, with the release's evaluate.py, and the
rank correlations of the two orderings; its card text and report."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irdata.doubting.audit_ranking import (
    audit_ranking,
    correlation,
    named_runs,
    pool_qrels,
    read_run_file,
    read_runs,
    run_files,
    run_selection,
    run_selection_lines,
    system_agreement,
)
from irdata.doubting.card_parts import system_ranking_text
from irdata.errors import InputError
from irdata.report import ranking_html
from irdata.retrieval.audit_runs import random_ranking

SHARED = Path(__file__).resolve().parents[3] / "shared/data/msmarco-passage-sample"
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data/msmarco-passage-sample")


def synthetic(folder: Path, skills=(0, 1, 2, 3, 4, 5), queries: int = 5, judged: int = 12, unjudged: int = 150,
              seed: int = 0):
    """Judged pairs (human grades 0-3) and runs over them, among unjudged passages: a run's scores follow
    the human grade times its skill (a negative skill prefers the low grades)."""
    rng = np.random.default_rng(seed)
    human = rng.choice(4, size=(queries, judged), p=[0.4, 0.3, 0.2, 0.1])
    human[:, 0] = 3  # every query has a relevant pair
    pairs = pd.DataFrame({"query_id": np.repeat([f"q{q}" for q in range(queries)], judged),
                          "passage_id": [f"p{q}_{j}" for q in range(queries) for j in range(judged)],
                          "human": human.ravel()})
    paths = []
    for r, skill in enumerate(skills):
        lines = []
        for q in range(queries):
            # deeper than Recall@100's cut, so that recall differs between runs too
            docs = [f"p{q}_{j}" for j in range(judged)] + [f"u{q}_{k}" for k in range(unjudged)]
            scores = np.concatenate([human[q] * skill * 0.4 + rng.random(judged) * 2, rng.random(unjudged) * 2 + 0.5])
            for rank, i in enumerate(np.argsort(-scores, kind="stable"), 1):
                lines.append(f"q{q} Q0 {docs[i]} {rank} {scores[i]:.6f} run{r}\n")
        path = folder / f"run{r}.trec"
        path.write_text("".join(lines))
        paths.append(str(path))
    return pairs, paths


def write_grades(folder: Path, pairs: pd.DataFrame, model) -> Path:
    path = folder / "grades.parquet"
    pairs.assign(grade=pd.array(model, dtype="Int8")).to_parquet(path)
    return path


def test_a_grader_that_returns_the_human_grades_orders_the_runs_as_the_humans_do(tmp_path):
    pairs, paths = synthetic(tmp_path)
    result = audit_ranking(write_grades(tmp_path, pairs, pairs["human"]), {}, paths)
    assert [r["name"] for r in result["runs"]] == [Path(p).name for p in paths]
    for measure in result["correlation"]:  # something to order
        assert len({r["human"][measure] for r in result["runs"]}) > 1
    for measure, corr in result["correlation"].items():
        assert corr == {"runs": len(paths), "kendall_tau": 1.0, "spearman_rho": 1.0}, measure
    assert all(r["human"] == r["model"] for r in result["runs"])


def test_a_grader_that_inverts_the_grades_orders_them_the_other_way(tmp_path):
    pairs, paths = synthetic(tmp_path, skills=(-3, -2, -1, 1, 2, 3), unjudged=0)
    result = audit_ranking(write_grades(tmp_path, pairs, 3 - pairs["human"]), {}, paths)
    assert result["correlation"]["nDCG@10"]["kendall_tau"] < -0.5


def test_failed_pairs_are_left_out_of_both_pools(tmp_path):
    pairs, paths = synthetic(tmp_path)
    model = pairs["human"].astype(object).where(pairs["passage_id"] != "p0_0", None)
    result = audit_ranking(write_grades(tmp_path, pairs, model), {}, paths)
    assert (result["pairs"], result["pairs_failed"]) == (len(pairs) - 1, 1)
    assert all(r["human"] == r["model"] for r in result["runs"])  # the failed pair is gone from the human side too


def ir_measures_scores(pairs: pd.DataFrame, column: str, run_path: str, queries: list[str]) -> dict:
    import ir_measures
    from ir_measures import RR, R, nDCG

    qrels = pairs.rename(columns={"passage_id": "doc_id", column: "relevance"})[["query_id", "doc_id", "relevance"]]
    qrels = qrels[qrels["query_id"].isin(queries)].astype({"relevance": int})
    measures = {"MRR@10": RR(rel=2) @ 10, "nDCG@10": nDCG @ 10, "Recall@100": R(rel=2) @ 100}
    agg = ir_measures.calc_aggregate(list(measures.values()), qrels, ir_measures.read_trec_run(run_path))
    return {name: agg[m] for name, m in measures.items()}


def check_against_ir_measures(pairs: pd.DataFrame, paths: list[str]):
    """Every run's measures under both grades equal ir_measures' over the queries evaluate.py averages."""
    result = system_agreement(pool_qrels(pairs, "human"), pool_qrels(pairs, "grade"),
                              {p: read_run_file(p) for p in paths})
    for row in result["runs"]:
        for side, column in (("human", "human"), ("model", "grade")):
            queries = sorted(pairs.loc[pairs[column] >= 2, "query_id"].unique())
            assert row[side]["queries"] == len(queries)
            expected = ir_measures_scores(pairs, column, row["name"], queries)
            assert {m: row[side][m] for m in expected} == pytest.approx(expected, abs=1e-12), (row["name"], side)
    return result


def test_the_measures_agree_with_ir_measures(tmp_path):
    pairs, paths = synthetic(tmp_path)
    rng = np.random.default_rng(1)
    pairs["grade"] = np.clip(pairs["human"] + rng.integers(-2, 2, len(pairs)), 0, 3)
    pairs.loc[pairs["query_id"] == "q1", "grade"] = 1  # a query without a relevant pair under the model
    check_against_ir_measures(pairs, paths)


@needs_shared
def test_the_measures_agree_with_ir_measures_on_trec_dl_2019_runs():
    from irdata.tsv import read_trec_qrels

    pairs = read_trec_qrels(SHARED / "qrels.dl19.graded.txt").to_pandas().rename(columns={"relevance": "human"})
    rng = np.random.default_rng(0)
    pairs["grade"] = np.clip(pairs["human"] + rng.integers(-1, 2, len(pairs)), 0, 3)
    paths = sorted(str(p) for p in (SHARED / "runs").glob("*_dl19.trec"))
    result = check_against_ir_measures(pairs, paths)
    assert result["queries"] == {"human": 43, "model": 43}
    assert result["correlation"]["nDCG@10"]["runs"] == 5


def test_correlation_is_null_without_anything_to_order():
    assert correlation([0.5], [0.4])["kendall_tau"] is None
    assert correlation([0.1, 0.2, 0.3], [0.0, 0.0, 0.0]) == {"runs": 3, "kendall_tau": None, "spearman_rho": None}
    assert correlation([0.1, 0.2, 0.3], [0.3, 0.2, 0.1])["kendall_tau"] == -1.0


def test_runs_are_named_by_file_a_folder_gives_its_files_and_a_bad_line_is_named(tmp_path):
    (tmp_path / "runs").mkdir()
    for name in ("b.trec", "a.trec"):
        (tmp_path / "runs" / name).write_text("q1 Q0 p1 1 1.0 x\n")
    files = run_files([str(tmp_path / "runs")])
    assert [Path(f).name for f in files] == ["a.trec", "b.trec"]
    assert list(named_runs({"bm25": "own.trec"}, files)) == ["workflow:bm25", "a.trec", "b.trec"]
    with pytest.raises(InputError, match="two configured runs are named 'a.trec'"):
        named_runs({}, [files[0], str(tmp_path / "a.trec")])
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 p1 1 1.0 x\nq1 Q0 p2 2 0.5\n")
    with pytest.raises(InputError, match=r"bad\.trec, line 2: expected 6 fields"):
        read_run_file(bad)
    (tmp_path / "run.gz").write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    with pytest.raises(InputError, match="cannot be read as gzip .* check it with gzip -t"):
        read_run_file(tmp_path / "run.gz")


def test_the_random_run_is_seeded_and_draws_from_the_whole_collection():
    collection = np.array([f"p{i}" for i in range(1000)], dtype=object)
    first = random_ranking("q1", collection, seed=0, depth=100)
    assert first == random_ranking("q1", collection, seed=0, depth=100)
    drawn = [p for p, _ in first]
    assert len(set(drawn)) == 100 and set(drawn) <= set(collection)
    assert max(int(p[1:]) for p in drawn) > 500  # from the whole collection, not its head
    assert [s for _, s in first] == sorted((s for _, s in first), reverse=True)
    assert first != random_ranking("q1", collection, seed=1, depth=100)
    assert first != random_ranking("q2", collection, seed=0, depth=100)
    assert len(random_ranking("q1", collection[:7], seed=0, depth=100)) == 7


def ranking(tau: float | None, model_queries: int = 5, runs: int = 4) -> dict:
    rows = [{"name": f"r{i}", "source": "workflow" if i < 2 else "config",
             "human": {"MRR@10": 0.1 * i, "nDCG@10": 0.1 * i, "Recall@100": 0.1 * i, "queries": 5},
             "model": {"MRR@10": 0.0, "nDCG@10": 0.0, "Recall@100": 0.0, "queries": model_queries}}
            for i in range(runs)]
    corr = {"runs": runs, "kendall_tau": tau, "spearman_rho": tau}
    return {"pairs": 40, "pairs_failed": 0, "depth": 100, "min_rel": 2, "measures": ["MRR@10", "nDCG@10", "Recall@100"],
            "runs": rows, "correlation": dict.fromkeys(["MRR@10", "nDCG@10", "Recall@100"], corr),
            "queries": {"human": 5, "model": model_queries}}


def test_the_card_says_what_the_numbers_show():
    high = system_ranking_text(ranking(0.95))
    assert "4 runs (2 the workflow's own" in high and "2 from doubting.audit.runs" in high
    assert "nDCG@10 0.950 (at or above 0.9" in high and "cannot order" not in high
    assert "one swapped pair moves tau by 0.33" in high
    assert "| `r3` | 0.300 | 0.000 |" in high
    low = system_ranking_text(ranking(0.5))
    assert "0.500 (below 0.9" in low and "at or above" not in low
    none = system_ranking_text(ranking(None, model_queries=0))
    assert "nDCG@10 n/a" in none and "no query has a pair of grade >= 2" in none and "cannot order systems" in none


def test_the_report_shows_the_runs_and_their_scatter():
    out = ranking_html(ranking(0.8), "human")
    assert "Kendall&#x27;s tau" in out and "<td>r3</td><td>config</td>" in out
    assert "data:image/png;base64," in out
    assert "not available" in ranking_html(None, "human")


def _run_with(ranks: dict[str, dict[str, int]], depth: int = 10) -> dict:
    """{qid: {pid: score}}: each query's named passages at their ranks, fillers around them."""
    run = {}
    for q, placed in ranks.items():
        at = {rank: pid for pid, rank in placed.items()}
        run[q] = {at.get(r, f"filler{r}"): float(100 - r) for r in range(1, depth + 1)}
    return run


def test_runs_with_the_same_scores_in_another_order_tie_as_exact_arithmetic_would():
    """A's reciprocal ranks under the human grades are B's under the model's, in another query order: 1, 1/2,
    1/6 summed in that order and as 1/2, 1/6, 1 differ in the last bit. Exactly, A and B tie on both sides: with
    two runs nothing is ordered (no tau), with a third below both the orderings agree (tau-b 1)."""
    queries = ("q1", "q2", "q3")
    human = {q: {"h": 3, "m": 0} for q in queries}
    model = {q: {"h": 0, "m": 3} for q in queries}
    a = _run_with({"q1": {"h": 1, "m": 2}, "q2": {"h": 2, "m": 6}, "q3": {"h": 6, "m": 1}})
    b = _run_with({"q1": {"h": 2, "m": 1}, "q2": {"h": 6, "m": 2}, "q3": {"h": 1, "m": 6}})
    c = _run_with({q: {"h": 3, "m": 4} for q in queries})
    two = system_agreement(human, model, {"a": a, "b": b})
    assert [r["human"]["MRR@10"] for r in two["runs"]] == [r["model"]["MRR@10"] for r in two["runs"]]
    assert two["correlation"]["MRR@10"] == {"runs": 2, "kendall_tau": None, "spearman_rho": None}
    three = system_agreement(human, model, {"a": a, "b": b, "c": c})
    assert three["correlation"]["MRR@10"]["kendall_tau"] == 1.0


def test_a_run_is_read_as_ir_measures_reads_it_and_its_choices_are_counted(tmp_path):
    """gzip and a byte order mark read; a header line skipped; a (query, passage) given twice: the last line
    counts (ir_measures, pytrec_eval); both counted."""
    import gzip

    text = ("qid Q0 docno rank score tag\nq1 Q0 p1 1 2.5 r\nq1 Q0 p2 2 1.5 r\nq1 Q0 p1 3 0.5 r\n"
            "q2 Q0 p3 1 inf r\n")
    plain, packed = tmp_path / "run.trec", tmp_path / "run.trec.gz"
    plain.write_bytes(b"\xef\xbb\xbf" + text.encode())
    packed.write_bytes(gzip.compress(text.encode(), mtime=0))
    for path in (plain, packed):
        counts = {}
        assert read_run_file(path, counts) == {"q1": {"p1": 0.5, "p2": 1.5}, "q2": {"p3": float("inf")}}
        assert counts == {"lines": 4, "header_lines": 1, "duplicate_lines": 1}


@pytest.mark.parametrize("lines, line, field, words", [
    ("q1 Q0 p1 1 2.5 r\nq1 Q0 p2 2 high r\n", 2, "score", "score 'high' is not a number"),
    ("q1 Q0 p1 1 2.5 r\nq1 Q0 p2 2 nan r\n", 2, "score", "NaN"),
    ("q1 Q0 p1 1 2.5 r\nq1 Q0 p2 two 1.5 r extra\n", 2, None, "expected 6 fields"),
    ("q1 Q0 p1 1 2.5 r\nq1 Q0 p\xe92 2 1.5 r\n", 2, None, "not UTF-8"),
])
def test_a_bad_run_line_is_named_by_the_stage_and_by_evaluate_py(tmp_path, lines, line, field, words):
    import subprocess
    import sys

    from irdata.doubting.examples import evaluate

    path = tmp_path / "run.trec"
    path.write_bytes(lines.encode("latin-1"))
    with pytest.raises(InputError) as error:
        read_run_file(path)
    assert (error.value.path, error.value.line, error.value.field) == (str(path), line, field)
    assert words in error.value.problem
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 p1 1\n")
    proc = subprocess.run([sys.executable, evaluate.__file__, "--qrels", str(qrels), "--run", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.strip() == str(error.value)
    qrels.write_text("q1 0 p1 1\nq1 0 p2 high\n")
    proc = subprocess.run([sys.executable, evaluate.__file__, "--qrels", str(qrels), "--run", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and proc.stderr.strip() == (f"{qrels}, line 2, field 'grade': grade 'high' is not "
                                                            "an integer")


def test_a_configured_run_that_scores_no_audit_query_is_refused_and_duplicates_are_reported(tmp_path):
    pairs, paths = synthetic(tmp_path, skills=(1, 2))
    grades = write_grades(tmp_path, pairs, pairs["human"])
    other = tmp_path / "other.trec"
    other.write_text("elsewhere Q0 p0_0 1 1.0 x\n")
    with pytest.raises(InputError) as error:
        audit_ranking(grades, {}, [*paths, str(other)])
    assert error.value.path == str(other) and "none of its 1 queries is a judged audit query" in error.value.problem
    doubled = tmp_path / "doubled.trec"
    lines = Path(paths[0]).read_text().splitlines(keepends=True)
    doubled.write_text("".join(lines) + lines[0])
    result = audit_ranking(grades, {}, [*paths, str(doubled)])
    row = next(r for r in result["runs"] if r["name"] == "doubled.trec")
    assert row["lines"] == {"lines": len(lines) + 1, "header_lines": 0, "duplicate_lines": 1}


# -- the configured runs: chosen by name, copies refused ---------------------------------------------------------


def test_a_folder_gives_its_runs_by_name_never_a_backup_a_hidden_file_or_a_subfolder(tmp_path):
    runs = tmp_path / "runs"
    (runs / "deeper").mkdir(parents=True)
    names = ["a.trec", "b.run", "input.bm25", "input.dense.gz", "c.trec.xz", "run~", "a.trec~", ".a.trec.swp",
             "#a.trec#", "input.bm25.bak", "README", "notes.txt", "deeper/d.trec"]
    for i, name in enumerate(names):
        (runs / name).write_text(f"q{i} Q0 p1 1 1.0 x\n")
    files, problems = run_selection([str(runs)])
    assert problems == []
    assert [Path(f).name for f in files] == ["a.trec", "b.run", "c.trec.xz", "input.bm25", "input.dense.gz"]
    # named by the file name without a compression suffix; an explicitly named file is a run whatever its name
    explicit = str(runs / "notes.txt")
    assert list(named_runs({}, [*files, explicit])) == ["a.trec", "b.run", "c.trec", "input.bm25", "input.dense",
                                                        "notes.txt"]


def test_a_folder_without_a_run_is_refused_saying_what_it_holds(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    nested = tmp_path / "nested"
    (nested / "2019").mkdir(parents=True)
    (nested / "2019/input.bm25").write_text("q1 Q0 p1 1 1.0 x\n")
    (nested / "README").write_text("the runs\n")
    backups = tmp_path / "backups"
    backups.mkdir()
    (backups / "run.trec~").write_text("q1 Q0 p1 1 1.0 x\n")
    (backups / "bm25.txt").write_text("q1 Q0 p1 1 1.0 x\n")
    files, problems = run_selection([str(empty), str(nested), str(backups)])
    assert files == []
    assert problems == [
        (0, str(empty), "the folder is empty; put the runs in it (*.trec, *.run or input.* (NIST's names), each also "
                        ".gz, .bz2 or .xz)"),
        (1, str(nested), f"no run file in the folder: it holds 1 folder(s) (2019/) and 1 file(s) not named as runs "
                         f"(README); the runs are one folder down: name {nested / '2019'} instead"),
        (2, str(backups), "no run file in the folder: it holds 2 file(s) not named as runs (bm25.txt, run.trec~); a "
                          "run is named *.trec, *.run or input.* (NIST's names), each also .gz, .bz2 or .xz: rename "
                          "the runs, or name each file")]
    with pytest.raises(InputError) as error:
        run_files([str(nested)])
    assert (error.value.path, error.value.field) == (str(nested), "doubting.audit.runs[0]")


def test_a_compressed_copy_beside_its_run_is_refused_by_name_and_a_copy_of_other_name_by_content(tmp_path):
    import gzip

    pairs, paths = synthetic(tmp_path, skills=(1, 2, 3))
    grades = write_grades(tmp_path, pairs, pairs["human"])
    runs = tmp_path / "runs"
    runs.mkdir()
    for path in paths:
        (runs / Path(path).name).write_bytes(Path(path).read_bytes())
    (runs / "run0.trec.gz").write_bytes(gzip.compress(Path(paths[0]).read_bytes()))
    files, problems = run_selection([str(runs)])
    assert problems == [(0, str(runs / "run0.trec.gz"), f"a run named 'run0.trec' already, by {runs / 'run0.trec'}: a "
                                                         "run is named by its file name (without .gz, .bz2, .xz); a "
                                                         "copy of it? Keep one, or rename one")]
    # another name, the same lines (CRLF and compressed: the same text as read): refused naming both files
    (runs / "run0.trec.gz").unlink()
    (runs / "copy.run.gz").write_bytes(gzip.compress(Path(paths[0]).read_bytes().replace(b"\n", b"\r\n")))
    files = run_files([str(runs)])
    with pytest.raises(InputError) as error:
        audit_ranking(grades, {}, files)
    assert error.value.path == str(runs / "run0.trec") and error.value.field == "doubting.audit.runs"
    assert error.value.problem.startswith(f"the same lines as {runs / 'copy.run.gz'} (decompressed)")
    # a copy of one of the workflow's own runs too
    (runs / "copy.run.gz").unlink()
    (tmp_path / "own.trec").write_bytes(Path(paths[1]).read_bytes())
    with pytest.raises(InputError, match=r"the same lines as .*own\.trec"):
        audit_ranking(grades, {"bm25": str(tmp_path / "own.trec")}, run_files([str(runs)]))


def test_a_backup_beside_the_runs_changes_nothing(tmp_path):
    """The issue's case: a folder swept up whole counted `run~` as another system and moved tau."""
    pairs, paths = synthetic(tmp_path, skills=(0, 1, 2, 3, 4))
    rng = np.random.default_rng(3)
    pairs["grade"] = np.clip(pairs["human"] + rng.integers(-1, 2, len(pairs)), 0, 3)
    grades = write_grades(tmp_path, pairs, pairs["grade"])
    runs = tmp_path / "runs"
    runs.mkdir()
    for path in paths:
        (runs / Path(path).name).write_bytes(Path(path).read_bytes())
    clean = audit_ranking(grades, {}, run_files([str(runs)]))
    (runs / "run4.trec~").write_bytes(Path(paths[0]).read_bytes())  # an older version, kept by the editor
    (runs / ".run2.trec.swp").write_bytes(b"\0\x01binary")
    assert audit_ranking(grades, {}, run_files([str(runs)])) == clean


@pytest.mark.parametrize("variant", ["trailing spaces and CRLF", "gzip", "bzip2", "xz", "tabs"])
def test_a_run_reads_as_ir_measures_reads_it_whatever_its_spacing_and_compression(tmp_path, variant):
    import bz2
    import gzip
    import lzma

    pairs, paths = synthetic(tmp_path, skills=(1, 2))
    pairs["grade"] = pairs["human"]
    text = Path(paths[0]).read_bytes()
    changed = {"trailing spaces and CRLF": lambda t: t.replace(b"\n", b"  \r\n"), "gzip": gzip.compress,
               "bzip2": bz2.compress, "xz": lzma.compress, "tabs": lambda t: t.replace(b" ", b"\t")}[variant](text)
    other = tmp_path / "variant.run"
    other.write_bytes(changed)
    plain = system_agreement(pool_qrels(pairs, "human"), pool_qrels(pairs, "grade"), {"r": read_run_file(paths[0])})
    read = system_agreement(pool_qrels(pairs, "human"), pool_qrels(pairs, "grade"), {"r": read_run_file(other)})
    assert read == plain
    check_against_ir_measures(pairs, [paths[0]])  # and the plain run's scores are ir_measures'


def test_the_planning_names_each_problem_of_a_builds_runs_by_its_key(tmp_path):
    """rules/common.smk stops the planning with these lines, as the missing-input check names a path."""
    runs = tmp_path / "runs"
    (runs / "2019").mkdir(parents=True)
    (runs / "2019/input.bm25.gz").write_text("")
    copies = tmp_path / "copies"
    copies.mkdir()
    for name in ("bm25.trec", "bm25.trec.gz", "bm25.trec~"):
        (copies / name).write_text("")
    builds = {"demo": {"doubting": {"audit": {"runs": []}}},
              "msmarco": {"doubting": {"audit": {"runs": ["runs", "copies", "missing"]}}}}
    assert run_selection_lines(builds, tmp_path) == [
        "builds.msmarco.audit.runs[0]: runs: no run file in the folder: it holds 1 folder(s) (2019/); the runs are "
        "one folder down: name runs/2019 instead",
        "builds.msmarco.audit.runs[1]: copies/bm25.trec.gz: a run named 'bm25.trec' already, by copies/bm25.trec: a "
        "run is named by its file name (without .gz, .bz2, .xz); a copy of it? Keep one, or rename one"]


def test_runs_without_a_record_are_no_copies_of_each_other(tmp_path):
    """The workflow's own runs of an audit whose queries found nothing are all empty: not copies."""
    own = {}
    for name in ("bm25", "dense"):
        (tmp_path / f"{name}.trec").write_text("")
        own[name] = str(tmp_path / f"{name}.trec")
    runs, lines = read_runs(named_runs(own, []))
    assert runs == {"workflow:bm25": {}, "workflow:dense": {}}
    assert lines["workflow:dense"] == {"lines": 0, "header_lines": 0, "duplicate_lines": 0}
