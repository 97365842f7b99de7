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
(query_id and the three scores, tab-separated; - for stdout), creating its folder. Exits 1 with a message
when no query of the qrels has a relevant pair or none of them is in the run. Run lines are `query_id Q0
passage_id rank score tag`; the ranking follows the score (descending), not the rank column. Equal
scores are ordered as ir_measures does, so that the numbers agree with it exactly: MRR@10 as the
official MS MARCO script (passage_id ascending), nDCG@10 and Recall@100 as trec_eval (passage_id
descending, the scores compared in single precision, as trec_eval holds them). Unjudged passages count as
non-relevant.

Files are read as ir_measures reads them: lines (a line ends at LF, CRLF or CR) of whitespace-separated
fields, trailing and blank space allowed, UTF-8. Each file is read once, front to back, so a pipe, a process
substitution (`--run <(zcat run.gz)`), /dev/stdin or - (standard input) give the numbers of the file. A gzip,
bzip2 or xz file is read as its text, known by its first bytes whatever its name; a zip, tar, zstd or
Parquet file is refused, saying what it is. Where the tools differ the choice is ir_measures' (trec_eval
refuses both), and both are counted and printed: a (query, passage) given on several lines of the run counts
with its last line's score; of the qrels, nDCG@10 and Recall@100 take its last line's grade (ir_measures hands
pytrec_eval a dict), MRR@10 counts it relevant when any of its lines has a relevant grade (ir_measures' RR,
the MS MARCO script's reading). A first run line `qid Q0 docno rank score tag` is a header, skipped and
counted. A line that cannot be read exits with its file, line and field; a file that is missing, a folder,
unreadable or no text exits with one line naming it.
No dependency beyond the standard library (pyarrow for the export).
"""

import argparse
import array
import bz2
import contextlib
import gzip
import io
import json
import math
import os
import re
import sys
import tempfile
import zlib
from collections import defaultdict
from pathlib import Path

try:
    import lzma
except ImportError:  # a Python built without liblzma: an xz file is refused by name
    lzma = None


class FormatError(ValueError):
    """A file that cannot be read: its path, the line (1-based) and field where known, and what is wrong."""

    def __init__(self, path, problem, line=None, field=None):
        self.path, self.problem, self.line, self.field = str(path), problem, line, field
        where = self.path + (f", line {line}" if line is not None else "") + (f", field {field!r}" if field else "")
        super().__init__(f"{where}: {problem}")


MAX_LINE = 1 << 20  # characters: a TREC line is far shorter, and a file without line ends (/dev/zero) is no hang
SNIFF = 512  # the first bytes that tell a file's format (tar's mark is at byte 257)
NOT_UTF8 = re.compile("[\udc80-\udcff]")  # what surrogateescape makes of a byte that is no UTF-8

# compressions read through the standard library: name, test of the first bytes, opener, the command that checks
COMPRESSIONS = [
    ("gzip", lambda head: head.startswith(b"\x1f\x8b"), lambda f: gzip.GzipFile(fileobj=f, mode="rb"), "gzip -t"),
    ("bzip2", lambda head: head.startswith(b"BZh") and head[4:10] in (b"1AY&SY", b"\x17rE8P\x90"),
     lambda f: bz2.BZ2File(f, mode="rb"), "bzip2 -t"),
    ("xz", lambda head: head.startswith(b"\xfd7zXZ\x00"), lambda f: lzma.LZMAFile(f, mode="rb"), "xz -t"),
]
# formats refused by their first bytes, with what to do
NOT_TEXT = [
    (lambda head: head.startswith(b"PK\x03\x04"), "a zip archive: unzip the file from it first"),
    (lambda head: head[257:262] == b"ustar", "a tar archive: extract the file from it first (tar xf)"),
    (lambda head: head.startswith(b"\x28\xb5\x2f\xfd"), "zstd-compressed: decompress it first (zstd -d)"),
    (lambda head: head.startswith(b"7z\xbc\xaf\x27\x1c"), "a 7z archive: extract the file from it first"),
    (lambda head: head.startswith(b"PAR1"), "a Parquet file, not text"),
    (lambda head: head.startswith((b"\xff\xfe\0\0", b"\0\0\xfe\xff")),
     "UTF-32 text (by its byte order mark): re-encode it as UTF-8 (iconv -f UTF-32 -t UTF-8)"),
    (lambda head: head.startswith((b"\xff\xfe", b"\xfe\xff")),
     "UTF-16 text (by its byte order mark): re-encode it as UTF-8 (iconv -f UTF-16 -t UTF-8)"),
]
DECOMPRESSION_ERRORS = (OSError, EOFError, zlib.error) + ((lzma.LZMAError,) if lzma else ())


class _Prefixed(io.RawIOBase):
    """`head`, the bytes already read to tell the format, then the rest of `stream`: a pipe is read once."""

    def __init__(self, head, stream):
        super().__init__()
        self._head, self._stream = memoryview(head), stream

    def readable(self):
        return True

    def readinto(self, buffer):
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n], self._head = self._head[:n], self._head[n:]
            return n
        return self._stream.readinto(buffer)


def _open(path):
    """The binary stream of `path` (- is standard input), or a FormatError saying why it cannot be read."""
    if path == "-":
        if sys.stdin is None:  # started with standard input closed
            raise FormatError(path, "no standard input to read: pipe the file in, or name it")
        stream = sys.stdin.buffer
    else:
        try:
            stream = open(path, "rb")
        except FileNotFoundError:
            raise FormatError(path, "no such file") from None
        except IsADirectoryError:
            raise FormatError(path, "a folder, not a file") from None
        except OSError as exc:
            raise FormatError(path, f"cannot be read ({exc.strerror or exc})") from None
    if stream.isatty():  # reading a terminal waits for typing: a hang to the user who meant a pipe
        stream.close()
        raise FormatError(path, "a terminal: pipe the file in (`... | evaluate.py --run -`) or name it")
    return stream


def _unpacked(stream, path, state):
    """A binary stream of the text of `stream`: decompressed when its first bytes say gzip, bzip2 or xz (any name;
    `state["compression"]` is set to it), refused when they say an archive or another binary format."""
    head = stream.read(SNIFF)
    for name, test, opener, _ in COMPRESSIONS:
        if test(head):
            if name == "xz" and lzma is None:
                raise FormatError(path, "xz-compressed, and this Python has no lzma module: decompress it first "
                                  "(xz -d)")
            state["compression"] = name
            stream = opener(io.BufferedReader(_Prefixed(head, stream)))
            head = stream.read(SNIFF)
            for inner, inner_test, _, _ in COMPRESSIONS:
                if inner_test(head):
                    raise FormatError(path, f"{name}-compressed twice ({inner} inside): decompress it first")
            break
    for test, what in NOT_TEXT:
        if test(head):
            packed = state.get("compression")
            raise FormatError(path, f"{packed}-compressed, and inside " + what if packed else what)
    return io.BufferedReader(_Prefixed(head, stream))


@contextlib.contextmanager
def open_binary(path, where=lambda: ""):
    """The bytes of `path`'s text (- is standard input) as a binary stream, read once front to back: decompressed
    when its first bytes say gzip, bzip2 or xz, refused when they say an archive or another binary format. A damaged
    compressed file is a FormatError, `where()` saying how far it was read."""
    state = {}
    stream = _open(path)
    try:
        with stream:
            yield _unpacked(stream, path, state)
    except DECOMPRESSION_ERRORS as exc:
        packed = state.get("compression")
        if packed is None:
            raise FormatError(path, f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
        check = next(command for name, _, _, command in COMPRESSIONS if name == packed)
        raise FormatError(path, f"cannot be read as {packed} ({exc}){where()}: a damaged or cut file; check it "
                          f"with {check}") from None


@contextlib.contextmanager
def open_text(path, where=lambda: ""):
    """open_binary's stream as text, with the line ends of Python's text mode (LF, CRLF, CR), a byte that is no
    UTF-8 as a lone surrogate (NOT_UTF8 finds it)."""
    with open_binary(path, where) as binary:
        yield io.TextIOWrapper(binary, encoding="utf-8", errors="surrogateescape", newline=None)


def _lines(path):
    """(number, text) of each line of a UTF-8 text file (open_text), a BOM dropped, as ir_measures reads it."""
    number = 0
    with open_text(path, lambda: f" after line {number}") as text:
        readline = text.readline
        line = readline(MAX_LINE + 1).removeprefix("\ufeff")
        while line:
            number += 1
            if "\0" in line or (not line.isascii() and NOT_UTF8.search(line)) or len(line) > MAX_LINE:
                _refuse_line(path, line, number)
            yield number, line
            line = readline(MAX_LINE + 1)


def _refuse_line(path, line, number):
    if "\0" in line:
        raise FormatError(path, f"a NUL character (character {line.index(chr(0)) + 1}), which ends a string to "
                          "trec_eval; remove it, or is this no text file?", line=number)
    bad = NOT_UTF8.search(line)
    if bad:
        raise FormatError(path, f"not UTF-8 text (character {bad.start() + 1} of the line): TREC files are plain "
                          "text; re-encode it as UTF-8", line=number)
    raise FormatError(path, f"a line longer than {MAX_LINE:,} characters: no TREC file", line=number)


def _number(text):
    try:
        return float(text)
    except ValueError:
        return None


def read_qrels(path, counts=None, highest=None):
    """{query_id: {passage_id: grade}} of TREC qrels, read as ir_measures reads them.

    A (query_id, passage_id) on several lines has its last line's grade here, the one pytrec_eval scores nDCG@10
    and Recall@100 with (ir_measures hands it a dict); `highest`, when a dict, receives {query_id: {passage_id:
    highest grade}} of those pairs, for MRR@10, which counts such a pair relevant when any of its lines is
    (ir_measures' RR, the MS MARCO script). `counts`, when a dict, receives lines (the records read),
    duplicate_lines (repeating a pair) and regraded_lines (repeating it with another grade)."""
    qrels = defaultdict(dict)
    lines = duplicates = regraded = 0
    for number, line in _lines(path):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 4:
            raise FormatError(path, f"expected 4 fields (query_id iteration passage_id grade), found {len(parts)}",
                              line=number)
        try:
            grade = int(parts[3])
        except ValueError:
            raise FormatError(path, f"grade {parts[3]!r} is not an integer", line=number, field="grade") from None
        judged, passage = qrels[parts[0]], parts[2]
        lines += 1
        if passage in judged:
            duplicates += 1
            regraded += judged[passage] != grade
            if highest is not None:
                best = highest.setdefault(parts[0], {})
                best[passage] = max(best.get(passage, judged[passage]), grade)
        judged[passage] = grade
    if counts is not None:
        counts.update(lines=lines, duplicate_lines=duplicates, regraded_lines=regraded)
    return qrels


def read_run(path, counts=None, content=None):
    """{query_id: {passage_id: score}} of a TREC run, read as trec_eval and ir_measures read it: the score
    orders, the rank column is not read.

    Where the format leaves a choice: a (query_id, passage_id) given on several lines counts with its last
    line's score (ir_measures and pytrec_eval); a first line whose rank and score are no numbers is a header
    (`qid Q0 docno rank score tag`) and skipped. Both are counted in `counts`, when a dict: lines (the records
    read), header_lines, duplicate_lines. A score that is no number, or NaN (which orders nothing), is refused.
    `content`, when given (a hashlib hash), is updated with the text of every line, as read (decompressed)."""
    run = defaultdict(dict)
    lines = header = duplicates = 0
    for number, line in _lines(path):
        if content is not None:
            content.update(line.encode("utf-8"))
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
    """Score descending, ties by passage_id descending (trec_eval, so pytrec_eval and ir_measures' nDCG/R). trec_eval
    holds a score as a C float (single precision): scores equal in single precision tie (1e-300 and 0, 1e39 and
    1e40 as infinity, 0.3 and 0.1 + 0.2), as there."""
    single = array.array("f", scores.values())
    return [doc for _, doc in sorted(zip(single, scores), reverse=True)]


def ranking_msmarco(scores):
    """Score descending, ties by passage_id ascending (the MS MARCO script, ir_measures' RR)."""
    return [doc for doc, _ in sorted(scores.items(), key=lambda item: (-item[1], item[0]))]


MEASURES = ("MRR@10", "nDCG@10", "Recall@100")
MIN_REL = 2


def evaluate(qrels, run, min_rel=MIN_REL, per_query=None, highest=None):
    """Mean MRR@10, nDCG@10, Recall@100 over the queries of `qrels` with a pair of grade >= min_rel.

    highest: read_qrels' highest grades of the pairs given on several lines, which decide MRR@10's relevance
    (and whether the query is evaluated); per_query, when a dict, receives {query_id: {measure: score}}."""
    highest = highest or {}
    totals = {name: [] for name in MEASURES}
    queries = []
    for q, judged in qrels.items():
        best = highest.get(q, {})
        relevant_any = {d for d, g in judged.items() if max(g, best.get(d, g)) >= min_rel}
        if relevant_any:
            queries.append((q, relevant_any))
    for q, relevant_any in queries:
        judged, scored = qrels[q], run.get(q, {})
        ranked = ranking_trec_eval(scored)
        relevant = {d for d, g in judged.items() if g >= min_rel}
        rr = 0.0
        for i, doc in enumerate(ranking_msmarco(scored)[:10]):
            if doc in relevant_any:
                rr = 1.0 / (i + 1)
                break
        dcg = sum(max(judged.get(doc, 0), 0) / math.log2(i + 2) for i, doc in enumerate(ranked[:10]))
        ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:10]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        # no relevant pair by last grades (only an earlier line of a repeated pair was): 0, as pytrec_eval
        recall = len(relevant.intersection(ranked[:100])) / len(relevant) if relevant else 0.0
        scores = {"MRR@10": rr, "nDCG@10": dcg / idcg if idcg > 0 else 0.0, "Recall@100": recall}
        for name, value in scores.items():
            totals[name].append(value)
        if per_query is not None:
            per_query[q] = scores
    n = len(queries)
    # fsum: the correctly rounded sum, whatever the query order (runs with the same scores tie exactly)
    result = {k: (math.fsum(v) / n if n else 0.0) for k, v in totals.items()}
    result["queries"] = n
    result["min_rel"] = min_rel
    result["queries_missing_from_run"] = sum(1 for q, _ in queries if q not in run)
    return result


def write_file(path, write, binary=False):
    """write(fh) into `path` whole: a temporary file beside it, renamed, its folders created, so that no reader sees
    half a file. - is standard output, and a device or a pipe (/dev/stdout) is written as it is."""
    if path == "-":
        write(sys.stdout.buffer if binary else sys.stdout)
        return
    opened = {"mode": "wb"} if binary else {"mode": "w", "encoding": "utf-8", "newline": "\n"}
    target = Path(path)
    if target.is_dir():
        raise FormatError(path, "a folder: name a file in it")
    try:
        if target.exists() and not target.is_file():
            with open(target, **opened) as fh:
                write(fh)
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise FormatError(path, f"cannot be written ({exc.strerror or exc})") from None
    try:
        with os.fdopen(fd, **opened) as fh:
            write(fh)
        os.replace(tmp, target)
    except BaseException as exc:
        os.unlink(tmp)
        if isinstance(exc, OSError):
            raise FormatError(path, f"cannot be written ({exc.strerror or exc})") from None
        raise


def export_train_qrels(package, out):
    path = Path(package) / "qrels" / "train.parquet"
    if not path.is_file():
        raise FormatError(path, "no such file: --package names the release folder (the one holding MANIFEST.json)")
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(path, columns=["query_id", "passage_id", "grade"])
    except ImportError:
        raise FormatError(path, "reading it needs pyarrow (pip install pyarrow)") from None
    except Exception as exc:  # pyarrow's errors (ArrowInvalid, ...) share no base class but Exception
        raise FormatError(path, f"cannot be read as the release's Parquet ({exc})") from None

    def chunks():
        for batch in table.to_batches(max_chunksize=1 << 16):
            q, p, g = (batch.column(i).to_pylist() for i in range(3))
            yield "".join(f"{a} 0 {b} {c}\n" for a, b, c in zip(q, p, g))

    write_file(out, lambda fh: fh.writelines(chunks()))
    return table.num_rows


def _count_lines(name, counts):
    """The line that says what a reader chose for repeated pairs and headers, or None when it chose nothing."""
    if name == "run" and (counts["header_lines"] or counts["duplicate_lines"]):
        return (f"run\t{counts['lines']} lines read, {counts['header_lines']} header line skipped, "
                f"{counts['duplicate_lines']} repeating a (query, passage) (the last one counts)")
    if name == "qrels" and counts["duplicate_lines"]:
        return (f"qrels\t{counts['lines']} lines read, {counts['duplicate_lines']} repeating a (query, passage), "
                f"{counts['regraded_lines']} of them with another grade (nDCG@10 and Recall@100 take the last "
                "grade, MRR@10 counts the pair relevant when any of its lines is, as ir_measures)")
    return None


def _evaluate_files(args):
    if args.qrels == "-" and args.run == "-":
        raise FormatError("-", "standard input can be one file only: give the qrels or the run a path")
    qrels_counts, run_counts, highest = {}, {}, {}
    qrels = read_qrels(args.qrels, qrels_counts, highest)
    if args.run != "-" and not os.path.lexists(args.run):
        raise FormatError(args.run, "no such file. The run is yours: a TREC run of the dev queries, one line "
                          "`query_id Q0 passage_id rank score tag` a retrieved passage (the card's my_run.trec "
                          "stands for it); examples/bm25_dev.trec is one to try")
    run = read_run(args.run, run_counts)
    per_query = {} if args.per_query else None
    result = evaluate(qrels, run, args.min_rel, per_query, highest)
    if result["queries"] == 0:
        raise FormatError(args.qrels, f"no query has a pair of grade >= {args.min_rel}, so nothing was evaluated "
                          "(an empty strict qrels, or a --min-rel above every grade)")
    if result["queries_missing_from_run"] == result["queries"]:
        raise FormatError(args.run, f"none of the {result['queries']} evaluated queries of {args.qrels} is in the "
                          "run; are the run and the qrels of the same queries?")
    if per_query is not None:
        lines = ["query_id\t" + "\t".join(MEASURES)]
        lines += [q + "".join(f"\t{scores[m]:.6f}" for m in MEASURES) for q, scores in per_query.items()]
        write_file(args.per_query, lambda fh: fh.writelines(line + "\n" for line in lines))
    if args.json:
        print(json.dumps({**result, "run_lines": run_counts, "qrels_lines": qrels_counts}, indent=2, sort_keys=True))
        return
    for name in MEASURES:
        print(f"{name}\t{result[name]:.4f}")
    print(f"queries\t{result['queries']} ({result['queries_missing_from_run']} missing from the run count 0)")
    for name, counts in (("qrels", qrels_counts), ("run", run_counts)):
        line = _count_lines(name, counts)
        if line:
            print(line)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--qrels", help="TREC qrels (trec/dev.strict.qrels; gzip, bzip2 or xz too; - for stdin)")
    parser.add_argument("--run", help="TREC run file (gzip, bzip2 or xz too; - for stdin)")
    parser.add_argument("--export-train-qrels", metavar="OUT", help="write the qrels train split as TREC qrels")
    parser.add_argument("--package", default=str(Path(__file__).resolve().parents[1]),
                        help="package folder (default: the folder above examples/)")
    parser.add_argument("--min-rel", type=int, default=MIN_REL,
                        help=f"lowest grade that counts as relevant (default {MIN_REL}, the release's convention)")
    parser.add_argument("--per-query", metavar="OUT", help="write each query's scores as TSV (- for stdout)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    if not args.export_train_qrels and not (args.qrels and args.run):
        parser.error("give --qrels and --run, or --export-train-qrels")
    try:
        if args.export_train_qrels:
            n = export_train_qrels(args.package, args.export_train_qrels)
            print(f"wrote {n} qrels to {args.export_train_qrels}" + (
                "" if n else ": the qrels train split of this build has no rows (MANIFEST.json rows; the card's "
                "Contents says why), so the file is empty"))
        else:
            _evaluate_files(args)
        sys.stdout.flush()
    except FormatError as error:
        sys.exit(str(error))
    except BrokenPipeError:  # the reader of stdout stopped (| head): nothing more to say, and no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
