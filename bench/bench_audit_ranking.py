"""The audit's system-ranking agreement at production size, against ir_measures on the same runs.

    python bench/bench_audit_ranking.py [--runs 40] [--queries 43] [--judged 215] [--run-queries 200]
                                        [--depth 1000]

Production audits TREC DL 2019 (43 judged queries, 9,260 judged pairs) with its ~37 official passage
runs (depth 1000 over all 200 test queries) and the workflow's own 4. Synthetic stand-ins of that
shape are written to files: a grades.parquet of the judged pairs (human grades 0-3, the model's a
noisy copy) and --runs TREC runs, each ranking the judged passages better the stronger the run, among
unjudged ones. Timed (process CPU seconds, imports excluded): the audit's own computation
(irdata.doubting.audit_ranking.audit_ranking: read the parquet and the runs, evaluate every run under
both grades with the release's evaluate.py, the correlations), and ir_measures (read qrels and runs,
nDCG@10, RR(rel=2)@10 and R(rel=2)@100 of every run under both). Every score must agree to 1e-9.
The last line says whether the audit stays under a minute of CPU.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow_scripts"))

import ir_measures  # noqa: E402
import scipy.stats  # noqa: E402, F401 - imported before the clock starts, as the audit's first call would
from ir_measures import RR, R, nDCG  # noqa: E402

from irdata.doubting.audit_ranking import audit_ranking  # noqa: E402

MEASURES = {"MRR@10": RR(rel=2) @ 10, "nDCG@10": nDCG @ 10, "Recall@100": R(rel=2) @ 100}
LIMIT_S = 60.0


def write_inputs(folder: Path, runs: int, queries: int, judged: int, run_queries: int, depth: int, seed=0):
    """grades.parquet and the run files; return the run paths."""
    rng = np.random.default_rng(seed)
    human = rng.choice(4, size=(queries, judged), p=[0.5, 0.25, 0.15, 0.1])
    model = np.clip(human + rng.integers(-1, 2, human.shape), 0, 3)
    qids = [str(1000 + q) for q in range(queries)]
    pids = [[f"{q}{j:05d}" for j in range(judged)] for q in range(queries)]
    pd.DataFrame({"query_id": np.repeat(qids, judged), "passage_id": [p for row in pids for p in row],
                  "grade": model.ravel().astype(np.int8), "human": human.ravel().astype(np.int8)}).to_parquet(
        folder / "grades.parquet")
    paths = []
    for r in range(runs):
        skill = r / max(runs - 1, 1)
        lines = []
        for q in range(run_queries):
            qid = str(1000 + q)
            if q < queries:  # judged passages scored by grade times skill, among unjudged ones
                docs = pids[q] + [f"u{q}_{k}" for k in range(depth)]
                scores = np.concatenate([human[q] * skill + rng.random(judged), rng.random(depth) * 1.5])
            else:
                docs = [f"u{q}_{k}" for k in range(depth)]
                scores = rng.random(depth)
            order = np.argsort(-scores, kind="stable")[:depth]
            lines += [f"{qid} Q0 {docs[i]} {rank} {scores[i]:.6f} run{r}\n" for rank, i in enumerate(order, 1)]
        path = folder / f"run{r:03d}.trec"
        path.write_text("".join(lines))
        paths.append(str(path))
    return paths


def ir_measures_scores(grades: Path, paths: list[str]) -> dict:
    frame = pd.read_parquet(grades)
    out = {}
    for side in ("human", "grade"):
        qrels = frame.rename(columns={"query_id": "query_id", "passage_id": "doc_id", side: "relevance"})
        qrels = qrels[["query_id", "doc_id", "relevance"]].astype({"relevance": int})
        for path in paths:
            agg = ir_measures.calc_aggregate(list(MEASURES.values()), qrels, ir_measures.read_trec_run(path))
            out[(Path(path).name, side)] = {name: agg[m] for name, m in MEASURES.items()}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--queries", type=int, default=43)
    parser.add_argument("--judged", type=int, default=215, help="judged passages a query")
    parser.add_argument("--run-queries", type=int, default=200, help="queries in each run (judged or not)")
    parser.add_argument("--depth", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        paths = write_inputs(folder, args.runs, args.queries, args.judged, args.run_queries, args.depth)
        start = time.process_time()
        result = audit_ranking(folder / "grades.parquet", {}, paths)
        ours = time.process_time() - start
        start = time.process_time()
        reference = ir_measures_scores(folder / "grades.parquet", paths)
        theirs = time.process_time() - start
    diff = max(abs(row[side][m] - reference[(row["name"], key)][m]) for row in result["runs"]
               for side, key in (("human", "human"), ("model", "grade")) for m in MEASURES)
    if diff > 1e-9:
        sys.exit(f"the audit's scores differ from ir_measures' by {diff:g}")
    print(f"{args.runs} runs x {args.run_queries} queries x depth {args.depth}; "
          f"{result['pairs']:,} judged pairs over {args.queries} queries; scores agree with ir_measures "
          f"(max difference {diff:.1e})")
    print(f"Kendall's tau (nDCG@10), human vs model grades: {result['correlation']['nDCG@10']['kendall_tau']}")
    print(f"audit (evaluate.py, both grades, correlations): {ours:.2f} s CPU")
    print(f"ir_measures (both grades):                       {theirs:.2f} s CPU")
    print(f"under a minute of CPU: {'yes' if ours < LIMIT_S else 'NO'} ({ours:.1f} s of {LIMIT_S:.0f})")


if __name__ == "__main__":
    main()
