"""System-ranking agreement of the label audit: do the model's grades order retrieval systems as the
human judgments do? (The test TREC RAG 2024, LLMJudge and UMBRELA apply to LLM-made qrels.)

The runs: the TREC run files of `doubting.audit.runs` and the workflow's own, over the judged audit queries
(rule audit_runs, irdata.retrieval.audit_runs): BM25, dense, their reciprocal-rank fusion and a seeded random
run drawn from the whole collection (a floor). A configured file is a run as named; a configured folder stands for
its files named as runs are (RUN_NAMES: `*.trec`, `*.run`, and `input.*`, NIST's names of a track's submitted
runs; each also `.gz`, `.bz2` or `.xz`), never an editor's backup or a hidden file (BACKUP_NAMES) nor what a
subfolder holds. A run is named by its file name without a compression suffix. Refused, naming the key: a folder
with no run in it (saying what it holds), two runs of one name (`run` and `run.gz`), and, when the job reads them,
two runs with the same lines (decompressed; the workflow's own runs included): a copy would count as another
system and move the correlations.
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

import fnmatch
import hashlib
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


RUNS_KEY = "doubting.audit.runs"
RUN_NAMES = ("*.trec", "*.run", "input.*")
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")  # what evaluate.py reads by content
BACKUP_NAMES = (".*", "*~", "#*#", "*.bak", "*.orig", "*.swp", "*.tmp")
RUN_NAMES_TEXT = "*.trec, *.run or input.* (NIST's names), each also .gz, .bz2 or .xz"


def run_name(path) -> str:
    """A configured run's name in the ranking: its file name without a compression suffix."""
    name = Path(path).name
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[:-len(suffix)]
    return name


def is_run_name(name: str) -> bool:
    """Whether a file of a runs folder is a run by its name (RUN_NAMES, not BACKUP_NAMES)."""
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in BACKUP_NAMES):
        return False
    return any(fnmatch.fnmatchcase(run_name(name), pattern) for pattern in RUN_NAMES)


def _listed(names: list[str], limit: int = 5) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _entries(folder: Path) -> list[Path]:
    """The folder's entries by name; none when it cannot be listed (run_selection says so for a configured one)."""
    try:
        return sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        return []


def _no_run_in(folder: Path, shown: Path) -> str:
    """Why a folder gives no run: what it holds, and where runs are when a subfolder holds them (named from
    `shown`, the folder as configured)."""
    entries = _entries(folder)
    if not entries:
        return f"the folder is empty; put the runs in it ({RUN_NAMES_TEXT})"
    subfolders = [p for p in entries if p.is_dir()]
    deeper = [p for p in subfolders if any(f.is_file() and is_run_name(f.name) for f in _entries(p))]
    others = [p.name for p in entries if not p.is_dir()]
    held = ([f"{len(subfolders)} folder(s) ({_listed([p.name + '/' for p in subfolders])})"] if subfolders else []) + (
        [f"{len(others)} file(s) not named as runs ({_listed(others)})"] if others else [])
    hint = (f"; the runs are one folder down: name {_listed([str(shown / p.name) for p in deeper], 3)} instead"
            if deeper else
            f"; a run is named {RUN_NAMES_TEXT}: rename the runs, or name each file")
    return f"no run file in the folder: it holds {' and '.join(held)}{hint}"


def run_selection(paths: list[str], folder: Path | None = None) -> tuple[list[str], list[tuple[int, str, str]]]:
    """The run files of doubting.audit.runs (each file as named; each folder's files named as runs, sorted by
    name), and its problems as (index in the list, path, problem): a folder with no run, two runs of one name.
    Relative paths are read from `folder` (the working folder when None) and returned as configured; a path that
    does not exist is skipped (the missing-input check names it)."""
    files, problems, named = [], [], {}
    for i, path in enumerate(paths):
        where = Path(folder or ".") / path
        if where.is_dir():
            try:
                listed = list(where.iterdir())
            except OSError as exc:
                problems.append((i, path, f"the folder cannot be listed ({exc.strerror or exc})"))
                continue
            chosen = sorted(str(Path(path) / f.name) for f in listed if f.is_file() and is_run_name(f.name))
            if not chosen:
                problems.append((i, path, _no_run_in(where, Path(path))))
        elif where.exists():
            chosen = [str(path)]
        else:
            continue
        for file in chosen:
            name = run_name(file)
            if name in named:
                problems.append((i, file, f"a run named {name!r} already, by {named[name]}: a run is named by its "
                                 "file name (without .gz, .bz2, .xz); a copy of it? Keep one, or rename one"))
            named.setdefault(name, file)
        files += chosen
    return files, problems


def run_selection_lines(builds: dict[str, dict], folder: Path) -> list[str]:
    """The planning's refusal: one line per problem of a build's audit runs (run_selection), named by its key,
    `builds.<name>.audit.runs[i]: path: problem`, as the missing-input check names a path (irdata/input_keys.py)."""
    return [f"builds.{name}.audit.runs[{i}]: {path}: {problem}" for name, built in builds.items()
            for i, path, problem in run_selection(built["doubting"]["audit"]["runs"], folder)[1]]


def run_files(paths: list[str]) -> list[str]:
    """The configured run files (run_selection); a problem of the list is an InputError naming its key."""
    files, problems = run_selection(paths)
    if problems:
        i, path, problem = problems[0]
        raise InputError(path, problem, field=f"{RUNS_KEY}[{i}]")
    return files


def named_runs(own: dict[str, str], configured: list[str]) -> dict[str, str]:
    """{run name: file}: the own runs as `workflow:<name>`, a configured one by run_name."""
    runs = {own_run_name(name): str(path) for name, path in own.items()}
    for path in configured:
        name = run_name(path)
        if name in runs:
            raise InputError(path, f"two configured runs are named {name!r} (by file name: {runs[name]} and this "
                             "one); rename one", field=RUNS_KEY)
        runs[name] = str(path)
    return runs


def read_run_file(path, counts: dict | None = None, content=None) -> dict:
    """A TREC run as evaluate.py reads it (evaluate.read_run: `counts` receives its lines, header and repeated
    lines, `content` a hash of its lines); a line it cannot read is an InputError naming it."""
    try:
        return evaluate.read_run(path, counts, content)
    except evaluate.FormatError as error:
        raise InputError(path, error.problem, line=error.line, field=error.field) from None


def read_runs(files: dict[str, str]) -> tuple[dict[str, dict], dict[str, dict]]:
    """({name: run}, {name: its line counts}) of the named run files, each read once; two runs of the same lines
    (decompressed) refused, naming both files. Runs without a record are not compared: empty, they copy nothing
    (a configured one is refused as scoring no judged query)."""
    runs, lines, seen = {}, {}, {}
    for name, path in files.items():
        lines[name], content = {}, hashlib.sha256()
        runs[name] = read_run_file(path, lines[name], content)
        digest = content.digest()
        if not lines[name]["lines"]:
            continue
        if digest in seen:
            raise InputError(path, f"the same lines as {seen[digest]} (decompressed): a copy of one run would count as "
                             f"another system in the ranking; leave one out of {RUNS_KEY}", field=RUNS_KEY)
        seen[digest] = path
    return runs, lines


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
    runs, lines = read_runs(files)
    human = pool_qrels(graded, "human")
    result = system_agreement(human, pool_qrels(graded, "grade"), runs, min_rel)
    for row, source in zip(result["runs"], [*("workflow",) * len(own), *("config",) * (len(runs) - len(own))]):
        row["source"], row["lines"] = source, lines[row["name"]]
        if source == "config" and row["human"]["queries"] and \
                row["human"]["queries_missing_from_run"] == row["human"]["queries"]:
            raise InputError(files[row["name"]], f"none of its {len(runs[row['name']])} queries is a judged audit "
                             f"query (e.g. {', '.join(sorted(human)[:3])}): it would score 0 and still be ranked. "
                             f"Is it a run of another query set? Leave it out of {RUNS_KEY}", field=RUNS_KEY)
    return {"pairs": int(len(graded)), "pairs_failed": int(len(frame) - len(graded)), "depth": DEPTH, **result}


def run_audit_ranking(*, bm25, dense, hybrid_rrf, random, grades, runs, ranking, settings: dict) -> dict:
    """The audit_ranking rule: the own runs (`bm25` ... `random`, OWN_RUNS) and the configured `runs` ranked by
    the human and the model grades of the audit pairs (`grades`), written to `ranking`."""
    result = audit_ranking(grades, dict(zip(OWN_RUNS, (bm25, dense, hybrid_rrf, random))), list(runs),
                           settings["min_rel"])
    write_json_atomic(ranking, result)
    return result
