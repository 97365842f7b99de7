"""The report's figures and tables (irdata.report) from a built package: what they show, "not available"
for the MANIFEST keys a build lacks, identical bytes for identical inputs."""

import html
import json
import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib.text import Text

from irdata import report
from irdata.card_text import counted
from irdata.doubting.assemble import DATA_FILES, STATS
from irdata.report import doubting_report, eval44b_report
from irdata.shard_files import AGENT_SCHEMA
from synthetic_doubting import edge_cases
from unit.test_doubting_package import build

PNG = b"\x89PNG\r\n\x1a\n"
AUDIT = {"pairs": 120, "kappa_linear": 0.4123, "kappa_quadratic": 0.5876,
         "confusion": [[30, 5, 2, 1], [6, 10, 4, 2], [3, 4, 20, 6], [1, 2, 5, 19]], "binary_agreement_at_2": 0.8417}
FAILURES = {"stages": {"agent_search": {"units": "episodes", "total": 50, "failed": 0, "retryable": 0, "by_kind": {}},
                       "grade": {"units": "pairs", "total": 1000, "failed": 7, "retryable": 2,
                                 "by_kind": {"unparseable": 5, "timeout": 2}}},
            "limits": {"agent_search": 0.01, "grade": 0.005}, "accepted_over_limit": True}


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("report")
    build(root, edge_cases(root / "w"))
    return root


def outputs(folder: Path) -> dict:
    return {"summary": folder / "summary.html", "grades": folder / "grades.png", "wood": folder / "wood.png",
            "proposals": folder / "proposals.png", "failures": folder / "failures.html",
            "audit": folder / "audit.html", "agent": folder / "agent.html"}


# the demo's report settings (irdata.doubting.stages.report_settings)
SETTINGS = {"title": "Doubting MS MARCO", "package_dir": "results/doubting-ms-marco",
            "grading": {"train": "query_only", "dev": "answer_hinted"}, "beir": None}


def run(built: Path, manifest: Path, folder: Path, agent_stats=None, agent_proposals=None, settings=None) -> dict:
    a = built / "assembled"
    out = outputs(folder)
    doubting_report(a / STATS, manifest, a / DATA_FILES["judgments", "train"], a / DATA_FILES["train_queries", "train"],
                    a / DATA_FILES["dev_queries", "dev"], out, agent_stats=agent_stats or {},
                    agent_proposals=agent_proposals or {}, settings=settings or SETTINGS)
    return out


@pytest.fixture
def figure_texts(monkeypatch) -> dict:
    """Every text of each figure the report saves (titles, axis labels, legends), by the file it goes to (a
    figure embedded in a table: `embedded <n>`)."""
    texts = {}
    save, embed = report.save_figure, report.figure_uri

    def words(fig):
        return [t.get_text() for t in fig.findobj(Text) if t.get_text()]

    def saving(fig, path):
        texts[Path(path).name] = words(fig)
        save(fig, path)

    def embedding(fig):
        texts[f"embedded {sum(name.startswith('embedded') for name in texts)}"] = words(fig)
        return embed(fig)

    monkeypatch.setattr(report, "save_figure", saving)
    monkeypatch.setattr(report, "figure_uri", embedding)
    return texts


def text(path: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text()))


def test_doubting_report_without_failures_and_audit(built, tmp_path):
    out = run(built, built / "pkg/MANIFEST.json", tmp_path / "a")
    for key in ("grades", "wood", "proposals"):
        assert out[key].read_bytes().startswith(PNG)
    assert "Failures per stage: not available" in text(out["failures"])
    assert "Label audit: not available" in text(out["audit"])
    stats = json.loads((built / "assembled" / STATS).read_text())
    summary = " ".join(text(out["summary"]).split())
    agent = stats["splits"]["train"]["agent_grades"]
    assert "train agent query_only " + " ".join(str(agent[str(g)]) for g in range(4)) in summary
    assert "qrels/train 8" in summary
    # the grading failures MANIFEST.json records today are shown
    assert "train/agent 1" in " ".join(text(out["failures"]).split())
    # identical inputs, identical files
    again = run(built, built / "pkg/MANIFEST.json", tmp_path / "b")
    assert all(out[k].read_bytes() == again[k].read_bytes() for k in out)


def test_doubting_report_renders_failures_and_audit_when_recorded(built, tmp_path, figure_texts):
    manifest = json.loads((built / "pkg/MANIFEST.json").read_text())
    manifest.update(failures=FAILURES, audit=AUDIT)
    path = tmp_path / "MANIFEST.json"
    path.write_text(json.dumps(manifest))
    out = run(built, path, tmp_path / "a")
    failures = " ".join(text(out["failures"]).split())
    assert "grade pairs 1,000 7 0.007 0.005 2 5" in failures, failures
    assert "agent_search episodes 50 0 0.000 0.010 0 0" in failures
    assert "over the failure limits" in failures
    audit = out["audit"].read_text()
    flat = " ".join(text(out["audit"]).split())
    assert "kappa, linear 0.412" in flat and "kappa, quadratic 0.588" in flat and "at grade >= 2 0.842" in flat
    assert "human 2 3 4 20 6" in flat and "pairs with human grades graded 120" in flat
    assert "src='data:image/png;base64," in audit
    assert "human grade" in figure_texts["embedded 0"]
    manifest["audit"] = {**AUDIT, "grades_from": "constructed"}
    path.write_text(json.dumps(manifest))
    figure_texts.clear()
    out = run(built, path, tmp_path / "b")
    flat = " ".join(text(out["audit"]).split())
    assert "pairs with constructed grades graded 120" in flat and "not human judgments" in flat
    assert "constructed grade" in figure_texts["embedded 0"] and "human grade" not in figure_texts["embedded 0"]


def test_the_agent_table_sums_the_jobs_and_bins_proposals_by_rank_and_source(built, tmp_path):
    stats = []
    for i, (turns, paths, ends) in enumerate([(5, {"grammar": 5}, {"finished": 1, "turn_budget": 1}),
                                              (3, {"grammar": 2, "none": 1}, {"protocol_errors": 1})]):
        stats.append(tmp_path / f"s{i}.json")
        stats[-1].write_text(json.dumps({"queries": 2 - i, "turns": turns, "complied_turns": turns - 1,
                                         "protocol_errors": 1, "searches": 2, "reformulations": 1, "proposals": 4,
                                         "cited_proposals": i, "echoed_ids": 0, "action_constraint": paths,
                                         "episode_ends": ends}))
    proposals = tmp_path / "agent.parquet"
    pq.write_table(pa.table({"query_id": ["a"] * 4 + ["b"] * 70, "passage_id": [str(i) for i in range(74)],
                             "agent_rank": [1, 2, 3, 7] + list(range(1, 71)),
                             "cited": [False, True, False, False] + [False] * 70}, schema=AGENT_SCHEMA), proposals)
    out = run(built, built / "pkg/MANIFEST.json", tmp_path / "a", {"train": stats, "dev": []},
              {"train": [proposals], "dev": []})
    flat = " ".join(text(out["agent"]).split())
    assert "turns 8 0" in flat and "complied turns 6 0" in flat and "queries 3 0" in flat
    assert "turns constrained as grammar 7 0" in flat and "turns constrained as none 1 0" in flat
    assert "episodes ending as protocol_errors 1 0" in flat
    # ranks 1, 2-5, 6-10, 11-60, 61+: query a's 1, 3, 7 and b's 70 agent proposals; a's rank 2 was cited
    assert "train agent 2 5 6 50 10" in flat and "train cited 0 1 0 0 0" in flat and "dev agent 0 0 0 0 0" in flat


def test_eval44b_report_ranks_arms(tmp_path):
    results = tmp_path / "results.jsonl"
    rows = [{"arm": "random", "P@1": 0.11, "P@2": 0.2, "P@3": 0.33, "MRR": 0.31, "mean_rank": 5.0,
             "ms_per_query": None, "queries": 10},
            {"arm": "bm25", "P@1": 0.6, "P@2": 0.7, "P@3": 0.8, "MRR": 0.7, "mean_rank": 2.0, "ms_per_query": 1.5,
             "queries": 10},
            {"arm": "llm", "P@1": 0.6, "P@2": 0.65, "P@3": 0.9, "MRR": 0.72, "mean_rank": 1.9, "ms_per_query": 900.0,
             "queries": 2, "model": "SmolLM2-135M-Instruct"}]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = {"arms": tmp_path / "arms.html", "figure": tmp_path / "arms.png"}
    ranked = eval44b_report(results=results, **out)
    assert [r["arm"] for r in ranked] == ["bm25", "llm", "random"]       # P@1, ties by name
    flat = " ".join(text(out["arms"]).split())
    assert "1 bm25 0.600" in flat and "2 llm (SmolLM2-135M-Instruct) 0.600" in flat and "3 random 0.110" in flat
    assert out["figure"].read_bytes().startswith(PNG)


def test_report_code_is_not_part_of_the_release_code():
    """The report reads the package: editing it must not rebuild the package (manifest code files)."""
    from irdata.doubting.release_code import code_files
    repo = Path(__file__).resolve().parents[2]
    files = code_files(repo)
    assert not [f for f in files if "report" in f] and "workflow_scripts/irdata/doubting/card.py" in files


def test_eval44b_report_lists_a_withheld_arm_unranked_and_plots_no_number_of_it(tmp_path):
    results = tmp_path / "results.jsonl"
    rows = [{"arm": "random", "P@1": 0.11, "P@2": 0.2, "P@3": 0.33, "MRR": 0.31, "mean_rank": 5.0,
             "ms_per_query": None, "queries": 10},
            {"arm": "llm", "P@1": None, "P@2": None, "P@3": None, "MRR": None, "mean_rank": None, "ms_per_query": None,
             "queries": 3, "model": "m", "metrics_withheld": "27 of 90 pairs failed, over the limit"}]
    results.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = {"arms": tmp_path / "arms.html", "figure": tmp_path / "arms.png"}
    assert [r["arm"] for r in eval44b_report(results=results, **out)] == ["random", "llm"]
    flat = " ".join(text(out["arms"]).split())
    assert "1 random 0.110" in flat and "llm (m) 3" in flat and "2 llm" not in flat
    assert out["figure"].read_bytes().startswith(PNG)


BEIR = {"title": "Doubting BEIR example", "package_dir": "results/doubting-beir-example",
        "grading": {"train": "query_only", "dev": "query_only"},
        "beir": {"folder": "resources/beir-example", "qrels": {"train": "train", "dev": "test"}}}
# a count and its noun: "1 query", "2 queries" (irdata.card_text.counted)
NOUNS = {"query": "queries", "pair": "pairs", "run": "runs", "train proposal": "train proposals"}


def ungrammatical(texts) -> list[str]:
    """The counts in `texts` whose noun is not in their number."""
    wrong = []
    for text in texts:
        for singular, plural in NOUNS.items():
            wrong += [m.group(0) for m in re.finditer(rf"\b([\d,]+) ({singular}|{plural})\b", text)
                      if (m.group(1) == "1") != (m.group(2) == singular)]
    return wrong


def test_counted_says_the_noun_in_its_number():
    assert [counted(n, "query", "queries") for n in (0, 1, 2, 1234)] == ["0 queries", "1 query", "2 queries",
                                                                         "1,234 queries"]
    assert counted(1, "pair") == "1 pair" and counted(3, "run") == "3 runs"
    assert ungrammatical(["train: 1 queries", "2 query", "1 pair", "0 runs", "(12 pairs)"]) == ["1 queries", "2 query"]


def test_every_figure_and_table_names_the_build_and_each_splits_grading(built, tmp_path, figure_texts):
    out = run(built, built / "pkg/MANIFEST.json", tmp_path / "beir", settings=BEIR)
    grades = figure_texts["grades.png"]
    assert "train: graded query_only" in grades and "dev (qrels test): graded query_only" in grades
    assert "Doubting BEIR example: grades of agent proposals and official positives" in grades
    every_text = [t for texts in figure_texts.values() for t in texts]
    every_text += [text(out[key]) for key in ("summary", "failures", "audit", "agent")]
    assert not [t for t in every_text if "answer_hinted" in t or "MS MARCO" in t or "comparable" in t]
    assert any(t.startswith("Doubting BEIR example: WOOD of ") for t in figure_texts["wood.png"])
    assert "Doubting BEIR example: agent proposals per query" in figure_texts["proposals.png"]
    for key in ("summary", "failures", "audit", "agent"):
        assert re.search(r"<h3>Doubting BEIR example: [^<]+</h3>", out[key].read_text()), key
    summary = " ".join(text(out["summary"]).split())
    assert ("published in results/doubting-beir-example ; its queries from the BEIR folder resources/beir-example , "
            "qrels split train as train and qrels split test as dev") in summary
    assert any(t.startswith("dev (qrels test): ") for t in figure_texts["proposals.png"])
    assert "train agent query_only" in summary and "train official query_only" in summary
    # dev official rows are the positives the agent did not propose (shard_files.OFFICIAL_ROWS)
    assert "dev official, not proposed query_only" in summary
    assert any(t.startswith("official, not proposed (") for t in figure_texts["grades.png"])
    assert any(re.fullmatch(r"official \([\d,]+ pairs?\)", t) for t in figure_texts["grades.png"])
    assert not ungrammatical(every_text)

    run(built, built / "pkg/MANIFEST.json", tmp_path / "demo")
    grades = figure_texts["grades.png"]
    assert "train: graded query_only" in grades and "dev: graded answer_hinted" in grades
    assert any(t.startswith("Doubting MS MARCO: grades") and t.endswith("not comparable)") for t in grades)
