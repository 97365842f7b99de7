"""Evaluate a TREC run on the strict development qrels of Doubting MS MARCO, or export TREC qrels.

    python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec
    python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec --per-query scores.tsv
    python examples/evaluate.py --export-train-qrels train.qrels --package .

Reports MRR@10, nDCG@10 and Recall@100 averaged over every query of the qrels that has a relevant
pair (the strict subset); a query missing from the run counts 0, as in the official MS MARCO script
and ir_measures. Relevant means grade >= --min-rel, by default 2, the release's convention (2
relevant, 3 directly answering; 1 is only marginally related), as ir_measures' RR(rel=2) and
R(rel=2); every pair of the strict dev qrels has grade 3 and of the train qrels 2 or 3. nDCG uses
every positive grade as gain and log2(rank + 1) discounts. --per-query writes one line per query
(query_id and the three scores, tab-separated; - for stdout). Exits 1 with a message when no query
of the qrels has a relevant pair or none of them is in the run. Run lines are `query_id Q0
passage_id rank score tag`; the ranking follows the score (descending), not the rank column. Equal
scores are ordered as ir_measures does, so that the numbers agree with it exactly: MRR@10 as the
official MS MARCO script (passage_id ascending), nDCG@10 and Recall@100 as trec_eval (passage_id
descending). Unjudged passages count as non-relevant.
No dependency beyond the standard library (pyarrow for the export).
"""

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path


def read_qrels(path):
    qrels = defaultdict(dict)
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 4:
                sys.exit(f"{path}, line {number}: expected 4 fields (query_id iteration passage_id grade)")
            qrels[parts[0]][parts[2]] = int(parts[3])
    return qrels


def read_run(path):
    run = defaultdict(dict)
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 6:
                sys.exit(f"{path}, line {number}: expected 6 fields (query_id Q0 passage_id rank score tag)")
            run[parts[0]][parts[2]] = float(parts[4])
    return run


def ranking_trec_eval(scores):
    """Score descending, ties by passage_id descending (trec_eval, so pytrec_eval and ir_measures' nDCG/R)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def ranking_msmarco(scores):
    """Score descending, ties by passage_id ascending (the MS MARCO script, ir_measures' RR)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


MEASURES = ("MRR@10", "nDCG@10", "Recall@100")
MIN_REL = 2


def evaluate(qrels, run, min_rel=MIN_REL, per_query=None):
    """Mean MRR@10, nDCG@10, Recall@100 over the queries of `qrels` with a pair of grade >= min_rel.

    per_query, when a dict, receives {query_id: {measure: score}}."""
    totals = dict.fromkeys(MEASURES, 0.0)
    queries = [q for q, judged in qrels.items() if any(g >= min_rel for g in judged.values())]
    for q in queries:
        judged = qrels[q]
        ranked = ranking_trec_eval(run.get(q, {}))
        relevant = {d for d, g in judged.items() if g >= min_rel}
        rr = 0.0
        for i, doc in enumerate(ranking_msmarco(run.get(q, {}))[:10]):
            if doc in relevant:
                rr = 1.0 / (i + 1)
                break
        dcg = sum(max(judged.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:10]))
        ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:10]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        scores = {"MRR@10": rr, "nDCG@10": dcg / idcg if idcg > 0 else 0.0,
                  "Recall@100": len(relevant.intersection(ranked[:100])) / len(relevant)}
        for name, value in scores.items():
            totals[name] += value
        if per_query is not None:
            per_query[q] = scores
    n = len(queries)
    result = {k: (v / n if n else 0.0) for k, v in totals.items()}
    result["queries"] = n
    result["min_rel"] = min_rel
    result["queries_missing_from_run"] = sum(1 for q in queries if q not in run)
    return result


def export_train_qrels(package, out):
    import pyarrow.parquet as pq

    table = pq.read_table(Path(package) / "qrels" / "train.parquet", columns=["query_id", "passage_id", "grade"])
    n = 0
    with open(out, "w", encoding="utf-8", newline="\n") as fh:
        for batch in table.to_batches(max_chunksize=1 << 16):
            q, p, g = (batch.column(i).to_pylist() for i in range(3))
            fh.writelines(f"{a} 0 {b} {c}\n" for a, b, c in zip(q, p, g))
            n += batch.num_rows
    return n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qrels", help="TREC qrels (trec/dev.strict.qrels)")
    parser.add_argument("--run", help="TREC run file")
    parser.add_argument("--export-train-qrels", metavar="OUT", help="write the qrels train split as TREC qrels")
    parser.add_argument("--package", default=str(Path(__file__).resolve().parents[1]),
                        help="package folder (default: the folder above examples/)")
    parser.add_argument("--min-rel", type=int, default=MIN_REL,
                        help=f"lowest grade that counts as relevant (default {MIN_REL}, the release's convention)")
    parser.add_argument("--per-query", metavar="OUT", help="write each query's scores as TSV (- for stdout)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if args.export_train_qrels:
        n = export_train_qrels(args.package, args.export_train_qrels)
        print(f"wrote {n} qrels to {args.export_train_qrels}")
        return
    if not (args.qrels and args.run):
        parser.error("give --qrels and --run, or --export-train-qrels")
    per_query = {} if args.per_query else None
    result = evaluate(read_qrels(args.qrels), read_run(args.run), args.min_rel, per_query)
    if result["queries"] == 0:
        sys.exit(f"{args.qrels}: no query has a pair of grade >= {args.min_rel}, so nothing was evaluated "
                 "(an empty strict qrels, or a --min-rel above every grade)")
    if result["queries_missing_from_run"] == result["queries"]:
        sys.exit(f"{args.run}: none of the {result['queries']} evaluated queries of {args.qrels} is in the run; "
                 "are the run and the qrels of the same queries?")
    if per_query is not None:
        lines = ["query_id\t" + "\t".join(MEASURES)]
        lines += [q + "".join(f"\t{scores[m]:.6f}" for m in MEASURES) for q, scores in per_query.items()]
        text = "\n".join(lines) + "\n"
        if args.per_query == "-":
            sys.stdout.write(text)
        else:
            Path(args.per_query).write_text(text, encoding="utf-8")
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
        return
    for name in MEASURES:
        print(f"{name}\t{result[name]:.4f}")
    print(f"queries\t{result['queries']} ({result['queries_missing_from_run']} missing from the run count 0)")


if __name__ == "__main__":
    main()
