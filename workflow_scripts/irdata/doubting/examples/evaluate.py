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
descending). Unjudged passages count as non-relevant. A run is read as ir_measures reads it (a .gz run
too); a passage given twice for a query counts with its last line, and a first line `qid Q0 docno rank score
tag` is a header, skipped: both are counted and printed. A line that cannot be read exits with its file,
line and field.
No dependency beyond the standard library (pyarrow for the export).
"""

import argparse
import gzip
import json
import math
import os
import sys
import zlib
from collections import defaultdict
from pathlib import Path


class FormatError(ValueError):
    """A file that cannot be read: its path, the line (1-based) and field where known, and what is wrong."""

    def __init__(self, path, problem, line=None, field=None):
        self.path, self.problem, self.line, self.field = str(path), problem, line, field
        where = self.path + (f", line {line}" if line is not None else "") + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {problem}")


def _lines(path):
    """(number, text) of each line of a UTF-8 text file, gzip-compressed or not (as ir_measures reads a run)."""
    try:
        with open(path, "rb") as fh:
            packed = fh.read(2) == b"\x1f\x8b"
    except OSError as exc:
        raise FormatError(path, f"cannot be read ({exc.strerror})") from None
    number = 0
    try:
        with (gzip.open(path, "rb") if packed else open(path, "rb")) as fh:
            for number, raw in enumerate(fh, start=1):
                try:
                    line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise FormatError(path, f"not UTF-8 text (byte {exc.start + 1} of the line): TREC files are "
                                      "plain text; re-encode it as UTF-8", line=number) from None
                if "\0" in line:
                    raise FormatError(path, f"a NUL character (character {line.index(chr(0)) + 1}), which ends a "
                                      "string to trec_eval; remove it", line=number)
                yield number, line
    except (OSError, EOFError, zlib.error) as exc:  # gzip.BadGzipFile is an OSError
        if not packed:
            raise
        raise FormatError(path, f"cannot be read as gzip ({exc}) after line {number}: a damaged or cut file; check "
                          "it with gunzip -t, or decompress a .gz run first") from None


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def read_qrels(path):
    qrels = defaultdict(dict)
    for number, line in _lines(path):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            raise FormatError(path, "expected 4 fields (query_id iteration passage_id grade)", line=number)
        try:
            qrels[parts[0]][parts[2]] = int(parts[3])
        except ValueError:
            raise FormatError(path, f"grade {parts[3]!r} is not an integer", line=number, field="grade") from None
    return qrels


def read_run(path, counts=None):
    """{query_id: {passage_id: score}} of a TREC run, read as trec_eval and ir_measures read it: the score
    orders, the rank column is not read; a gzip file is read as its text.

    Where the format leaves a choice: a (query_id, passage_id) given on several lines counts with its last
    line's score (ir_measures and pytrec_eval); a first line whose rank and score are no numbers is a header
    (`qid Q0 docno rank score tag`) and skipped. Both are counted in `counts`, when a dict: lines (the records
    read), header_lines, duplicate_lines. A score that is no number, or NaN (which orders nothing), is refused."""
    run = defaultdict(dict)
    lines = header = duplicates = 0
    for number, line in _lines(path):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 6:
            raise FormatError(path, f"expected 6 fields (query_id Q0 passage_id rank score tag), found {len(parts)}",
                              line=number)
        score = _number(parts[4])
        if score is None and not lines and not header and _number(parts[3]) is None:
            header += 1
            continue
        if score is None:
            raise FormatError(path, f"score {parts[4]!r} is not a number", line=number, field="score")
        if score != score:
            raise FormatError(path, "score is NaN, which orders nothing; give the passage a number", line=number,
                              field="score")
        lines += 1
        duplicates += parts[2] in run[parts[0]]
        run[parts[0]][parts[2]] = score
    if counts is not None:
        counts.update(lines=lines, header_lines=header, duplicate_lines=duplicates)
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
    totals = {name: [] for name in MEASURES}
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
            totals[name].append(value)
        if per_query is not None:
            per_query[q] = scores
    n = len(queries)
    # fsum: the correctly rounded sum, whatever the query order (runs with the same scores tie exactly)
    result = {k: (math.fsum(v) / n if n else 0.0) for k, v in totals.items()}
    result["queries"] = n
    result["min_rel"] = min_rel
    result["queries_missing_from_run"] = sum(1 for q in queries if q not in run)
    return result


def export_train_qrels(package, out):
    import pyarrow.parquet as pq

    path = Path(package) / "qrels" / "train.parquet"
    if not path.is_file():
        raise FormatError(path, "no such file: --package names the release folder (the one holding MANIFEST.json)")
    table = pq.read_table(path, columns=["query_id", "passage_id", "grade"])
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
        try:
            n = export_train_qrels(args.package, args.export_train_qrels)
        except FormatError as error:
            sys.exit(str(error))
        print(f"wrote {n} qrels to {args.export_train_qrels}" + (
            "" if n else ": the qrels train split of this build has no rows (MANIFEST.json rows; the card's "
            "Contents says why), so the file is empty"))
        return
    if not (args.qrels and args.run):
        parser.error("give --qrels and --run, or --export-train-qrels")
    per_query = {} if args.per_query else None
    counts = {}
    try:
        qrels = read_qrels(args.qrels)
        if not os.path.exists(args.run):
            raise FormatError(args.run, "no such file. The run is yours: a TREC run of the dev queries, one line "
                              "`query_id Q0 passage_id rank score tag` a retrieved passage (the card's my_run.trec "
                              "stands for it); examples/bm25_dev.trec is one to try")
        run = read_run(args.run, counts)
    except FormatError as error:
        sys.exit(str(error))
    result = evaluate(qrels, run, args.min_rel, per_query)
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
        print(json.dumps({**result, "run_lines": counts}, indent=2, sort_keys=True))
        return
    for name in MEASURES:
        print(f"{name}\t{result[name]:.4f}")
    print(f"queries\t{result['queries']} ({result['queries_missing_from_run']} missing from the run count 0)")
    if counts["header_lines"] or counts["duplicate_lines"]:
        print(f"run\t{counts['lines']} lines read, {counts['header_lines']} header line skipped, "
              f"{counts['duplicate_lines']} repeating a (query, passage) (the last one counts)")


if __name__ == "__main__":
    main()
