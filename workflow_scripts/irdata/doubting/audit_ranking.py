"""System-ranking agreement of the label audit: do the model's grades order retrieval systems as the
human judgments do? (The test TREC RAG 2024, LLMJudge and UMBRELA apply to LLM-made qrels.)

The runs: the TREC run files of `doubting.audit.runs` (a folder stands for every file in it) and the
workflow's own, over the judged audit queries (rule audit_runs, irdata.retrieval.audit_runs): BM25,
dense, their reciprocal-rank fusion and a seeded random run drawn from the whole collection (a floor).
Each run is evaluated twice over the same judged pool, the audited pairs (audit_labels): under the
human grades and under the model's grades of those pairs. A pair whose grading failed is left out of
both; a retrieved passage outside the pool counts as non-relevant under both. The measures are the
release's own examples/evaluate.py (nDCG@10 with the grade as gain; MRR@10 and Recall@100 with
relevant = grade >= 2, averaged over the queries with such a pair: the release's convention and the
TREC DL binarisation). Across runs, per measure: Kendall's tau (tau-b) and Spearman's rho of the two
orderings, with the number of runs; null with fewer than 2 runs or when one side gives every run the
same score (nothing to order). Scores are compared rounded to 12 places, so that runs whose scores are
equal in exact arithmetic tie. A run is read as evaluate.py reads it (ir_measures' reading): each run's
lines, header lines skipped and lines repeating a (query, passage) (the last one counts) are in its row
(`lines`); a configured run that scores no judged query is refused.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..atomic import write_json_atomic
from ..errors import InputError
from .examples import evaluate
from .own_runs import OWN_RUNS, own_run_name

DEPTH = 100  # Recall@100 is the deepest measure evaluate.py reports
MEASURES = evaluate.MEASURES
MIN_REL = evaluate.MIN_REL
TIE_DIGITS = 12  # far above a mean's float error, far below a real difference of two runs' means


def run_files(paths: list[str]) -> list[str]:
    """The configured run files: each path, or every file of a folder, sorted by name."""
    files = []
    for path in paths:
        p = Path(path)
        files += sorted(str(f) for f in p.iterdir() if f.is_file()) if p.is_dir() else [path]
    return files


def named_runs(own: dict[str, str], configured: list[str]) -> dict[str, str]:
    """{run name: file}: the own runs as `workflow:<name>`, a configured one by its file name."""
    runs = {own_run_name(name): str(path) for name, path in own.items()}
    for path in configured:
        name = Path(path).name
        if name in runs:
            raise InputError(path, f"two configured runs are named {name!r} (by file name); rename one",
                             field="doubting.audit.runs")
        runs[name] = str(path)
    return runs


def read_run_file(path, counts: dict | None = None) -> dict:
    """A TREC run as evaluate.py reads it (evaluate.read_run: `counts` receives its lines, header and repeated
    lines); a line it cannot read is an InputError naming it."""
    try:
        return evaluate.read_run(path, counts)
    except evaluate.FormatError as error:
        raise InputError(path, error.problem, line=error.line, field=error.field) from None


def pool_qrels(pairs: pd.DataFrame, column: str) -> dict:
    """{query_id: {passage_id: grade}} of the graded pairs' `column` (human or grade)."""
    qrels: dict = {}
    for q, p, g in zip(pairs["query_id"], pairs["passage_id"], pairs[column].astype(int)):
        qrels.setdefault(q, {})[p] = int(g)
    return qrels


def correlation(human: list[float], model: list[float]) -> dict:
    """Kendall's tau-b and Spearman's rho of two scorings of the same runs, and how many runs. The scores are
    compared rounded to TIE_DIGITS: runs whose scores are equal in exact arithmetic tie, whatever the rounding
    of their float means."""
    from scipy.stats import kendalltau, spearmanr

    human, model = [round(x, TIE_DIGITS) for x in human], [round(x, TIE_DIGITS) for x in model]
    n = len(human)
    if n < 2 or len(set(human)) < 2 or len(set(model)) < 2:
        return {"runs": n, "kendall_tau": None, "spearman_rho": None}
    # rounded: identical orderings give exactly 1.0, not 1 - 1e-16
    return {"runs": n, "kendall_tau": round(float(kendalltau(human, model).statistic), 12),
            "spearman_rho": round(float(spearmanr(human, model).statistic), 12)}


def system_agreement(human_qrels: dict, model_qrels: dict, runs: dict[str, dict], min_rel: int = MIN_REL) -> dict:
    """Each run's measures under both qrels, and the rank correlations of the runs per measure."""
    rows = []
    for name, run in runs.items():
        rows.append({"name": name, "human": evaluate.evaluate(human_qrels, run, min_rel),
                     "model": evaluate.evaluate(model_qrels, run, min_rel)})
    correlations = {m: correlation([r["human"][m] for r in rows], [r["model"][m] for r in rows]) for m in MEASURES}
    return {"min_rel": min_rel, "measures": list(MEASURES), "runs": rows, "correlation": correlations,
            "queries": {"human": rows[0]["human"]["queries"] if rows else 0,
                        "model": rows[0]["model"]["queries"] if rows else 0}}


def audit_ranking(grades_path, own: dict[str, str], configured: list[str], min_rel: int = MIN_REL) -> dict:
    """The audit_ranking rule: the graded audit pairs (grades.parquet of audit_labels), the own runs by
    name and the configured run files (run_files of the config's list)."""
    frame = pd.read_parquet(grades_path, columns=["query_id", "passage_id", "grade", "human"])
    graded = frame[frame["grade"].notna()]
    files = named_runs(own, configured)
    runs, lines = {}, {}
    for name, path in files.items():
        lines[name] = {}
        runs[name] = read_run_file(path, lines[name])
    human = pool_qrels(graded, "human")
    result = system_agreement(human, pool_qrels(graded, "grade"), runs, min_rel)
    for row, source in zip(result["runs"], [*("workflow",) * len(own), *("config",) * (len(runs) - len(own))]):
        row["source"], row["lines"] = source, lines[row["name"]]
        if source == "config" and row["human"]["queries"] and \
                row["human"]["queries_missing_from_run"] == row["human"]["queries"]:
            raise InputError(files[row["name"]], f"none of its {len(runs[row['name']])} queries is a judged audit "
                             f"query (e.g. {', '.join(sorted(human)[:3])}): it would score 0 and still be ranked. "
                             "Is it a run of another query set? Leave it out of doubting.audit.runs",
                             field="doubting.audit.runs")
    return {"pairs": int(len(graded)), "pairs_failed": int(len(frame) - len(graded)), "depth": DEPTH, **result}


def run_audit_ranking(*, bm25, dense, hybrid_rrf, random, grades, runs, ranking, settings: dict) -> dict:
    """The audit_ranking rule: the own runs (`bm25` ... `random`, OWN_RUNS) and the configured `runs` ranked by
    the human and the model grades of the audit pairs (`grades`), written to `ranking`."""
    result = audit_ranking(grades, dict(zip(OWN_RUNS, (bm25, dense, hybrid_rrf, random))), list(runs),
                           settings["min_rel"])
    write_json_atomic(ranking, result)
    return result
