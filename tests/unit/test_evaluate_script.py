"""The release's examples/evaluate.py against ir_measures (pytrec_eval and the MS MARCO script under it), on
generated qrels and runs: every measure, query by query, with repeated pairs, tied scores, trailing spaces,
blank lines, CRLF and CR line ends, compressed files and streams (a pipe, /dev/stdin, a process substitution,
-); and every path a user can give it that is no readable TREC file ends in one line and a non-zero exit."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import math
import os
import pty
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irdata.doubting.examples import evaluate

SCRIPT = evaluate.__file__
COMPRESS = {"none": lambda b: b, "gzip": lambda b: gzip.compress(b, mtime=0), "bzip2": bz2.compress,
            "xz": lzma.compress}
# few ids, so that pairs repeat and scores tie; non-ASCII ones, so that ties order by code point as trec_eval's
# strcmp orders UTF-8
IDS = st.sampled_from(["a", "b", "c", "d", "e", "f", "g", "h", "Z", "é", "ß", "中", "10", "9"])
QUERIES = st.sampled_from(["q1", "q2", "q3", "q4", "Q1"])
# scores equal only in single precision (trec_eval's): 1e-300 and 0, 1e39, 1e40 and inf, 0.3 and 0.1 + 0.2
SCORES = st.sampled_from(["1", "1.0", "2.5", "-1", "0", "1e0", "+2.5", "inf", "-inf", "0.5", "1e-300", "7", "1e39",
                          "1e40", "0.3", "0.30000000000000004"])
SEPARATORS = st.sampled_from([" ", "\t", "  ", " \t"])


@st.composite
def trec_files(draw):
    """(qrels rows, run rows, and each as the bytes of a file written as a user might: any field separator,
    trailing spaces, blank lines, LF, CRLF or CR line ends)."""
    qrels = draw(st.lists(st.tuples(QUERIES, IDS, st.integers(-1, 3)), min_size=1, max_size=20))
    for _ in range(draw(st.integers(0, 6))):  # a pair again, with any grade, anywhere after it
        at = draw(st.integers(0, len(qrels) - 1))
        qrels.insert(draw(st.integers(at + 1, len(qrels))), qrels[at][:2] + (draw(st.integers(-1, 3)),))
    run = draw(st.lists(st.tuples(QUERIES, IDS, st.integers(1, 1000), SCORES), min_size=1, max_size=60))
    eol = draw(st.sampled_from(["\n", "\r\n", "\r"]))

    def text(rows):
        out = []
        for fields in rows:
            sep = draw(SEPARATORS)
            out += [""] * draw(st.integers(0, 1))
            out.append(sep.join(fields) + draw(st.sampled_from(["", " ", "\t", "  "])))
        return (eol.join(out) + (eol if draw(st.booleans()) else "")).encode()

    qrels_text = text([(q, "0", d, str(g)) for q, d, g in qrels])
    run_text = text([(q, "Q0", d, str(r), s, "tag") for q, d, r, s in run])
    return qrels, run, qrels_text, run_text


def reference(qrels, run, min_rel, folder: Path):
    """ir_measures' per-query scores of the evaluated queries (those with a line of grade >= min_rel), read by
    ir_measures from plain files, one record a line."""
    import ir_measures
    from ir_measures import RR, R, nDCG

    queries = {q for q, _, g in qrels if g >= min_rel}
    (folder / "ref.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels if q in queries))
    (folder / "ref.run").write_text("".join(f"{q} Q0 {d} {r} {s} tag\n" for q, d, r, s in run))
    measures = {"MRR@10": RR(rel=min_rel) @ 10, "nDCG@10": nDCG @ 10, "Recall@100": R(rel=min_rel) @ 100}
    got = {q: dict.fromkeys(measures, 0.0) for q in queries}  # a query missing from the run counts 0
    names = {m: name for name, m in measures.items()}
    for metric in ir_measures.iter_calc(list(measures.values()),
                                        list(ir_measures.read_trec_qrels(str(folder / "ref.qrels"))),
                                        list(ir_measures.read_trec_run(str(folder / "ref.run")))):
        got[metric.query_id][names[metric.measure]] = metric.value
    # ir_measures' aggregate: the mean over the qrels' queries, a query missing from the run 0
    return got, {name: sum(scores[name] for scores in got.values()) / len(got) for name in measures}


def expected_counts(qrels, run):
    regraded, last = 0, {}
    for q, d, g in qrels:
        regraded += (q, d) in last and last[(q, d)] != g
        last[(q, d)] = g
    return ({"lines": len(qrels), "duplicate_lines": len(qrels) - len(last), "regraded_lines": regraded},
            {"lines": len(run), "header_lines": 0, "duplicate_lines": len(run) - len({(q, d) for q, d, _, _ in run})})


def check_scores(ours: dict, per_query: dict, qrels, run, min_rel, folder: Path, per_query_digits: int = 12):
    got, aggregate = reference(qrels, run, min_rel, folder)
    assert set(per_query) == set(got)
    for q, scores in per_query.items():
        assert scores == pytest.approx(got[q], abs=10**-per_query_digits), q
    assert {m: ours[m] for m in evaluate.MEASURES} == pytest.approx(aggregate, abs=1e-12)
    assert ours["queries"] == len(got)


class Pipe:
    """A pipe whose read end is a path (/dev/fd/N) and whose writer thread writes `data`: a stream that can be
    read once, as a process substitution gives one."""

    def __init__(self, data: bytes):
        self.read_fd, write_fd = os.pipe()
        self.path = f"/dev/fd/{self.read_fd}"
        self.thread = threading.Thread(target=self._write, args=(write_fd, data), daemon=True)

    @staticmethod
    def _write(fd, data):
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        except BrokenPipeError:  # the reader refused the file before its end
            pass

    def __enter__(self):
        self.thread.start()
        return self.path

    def __exit__(self, *exc):
        os.close(self.read_fd)
        self.thread.join(timeout=10)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=trec_files(), min_rel=st.integers(1, 3), packing=st.sampled_from(list(COMPRESS)),
       delivery=st.sampled_from(["file", "pipe"]), bom=st.booleans())
def test_every_measure_equals_ir_measures_on_generated_files(files, min_rel, packing, delivery, bom):
    qrels, run, qrels_text, run_text = files
    assume(any(g >= min_rel for _, _, g in qrels))
    run_bytes = COMPRESS[packing]((b"\xef\xbb\xbf" if bom else b"") + run_text)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        (folder / "q.qrels").write_bytes(COMPRESS[packing](qrels_text))
        (folder / "r.trec").write_bytes(run_bytes)
        qrels_counts, run_counts, highest = {}, {}, {}
        read_q = evaluate.read_qrels(str(folder / "q.qrels"), qrels_counts, highest)
        if delivery == "pipe":
            with Pipe(run_bytes) as path:
                read_r = evaluate.read_run(path, run_counts)
        else:
            read_r = evaluate.read_run(str(folder / "r.trec"), run_counts)
        per_query = {}
        ours = evaluate.evaluate(read_q, read_r, min_rel, per_query, highest)
        assert (qrels_counts, run_counts) == expected_counts(qrels, run)
        check_scores(ours, per_query, qrels, run, min_rel, folder)


def run_script(*args, cwd=None, **kwargs):
    return subprocess.run([sys.executable, SCRIPT, *map(str, args)], capture_output=True, cwd=cwd, timeout=60,
                          **kwargs)


def scores_of(proc, per_query_path: Path):
    assert proc.returncode == 0, proc.stderr.decode()
    rows = [line.split("\t") for line in per_query_path.read_text().splitlines()]
    assert rows[0] == ["query_id", *evaluate.MEASURES]
    return json.loads(proc.stdout), {r[0]: dict(zip(evaluate.MEASURES, map(float, r[1:]))) for r in rows[1:]}


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for the process substitution")
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=trec_files(), min_rel=st.integers(1, 3), packing=st.sampled_from(list(COMPRESS)))
def test_the_script_gives_the_same_numbers_from_a_file_a_pipe_stdin_and_a_process_substitution(files, min_rel,
                                                                                                packing):
    """The bug this pins: the script once read 2 bytes to sniff gzip, then opened the file again; a stream had
    lost its first 4 KiB by then. The run here is longer than that."""
    qrels, run, qrels_text, run_text = files
    evaluated = {q for q, _, g in qrels if g >= min_rel}
    assume(evaluated & {q for q, *_ in run})  # else the script exits 1, saying so
    repeat = 4096 // len(run_text) + 1  # the same records again: duplicates, so the same scores, past 4 KiB
    run = run * (repeat + 1)
    run_text = run_text + (b"\n" + run_text) * repeat
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        q, r = folder / "q.qrels", folder / "r.trec"
        q.write_bytes(COMPRESS[packing](qrels_text))
        r.write_bytes(COMPRESS[packing](run_text))
        results = []
        for how in ("file", "dash", "dev_stdin", "substitution"):
            pq = folder / f"pq.{how}.tsv"
            common = ["--min-rel", min_rel, "--json", "--per-query", pq]
            if how == "file":
                proc = run_script("--qrels", q, "--run", r, *common)
            elif how in ("dash", "dev_stdin"):
                proc = run_script("--qrels", q, "--run", "-" if how == "dash" else "/dev/stdin", *common,
                                  input=r.read_bytes())
            else:
                command = (f"{sys.executable} {SCRIPT} --qrels <(cat {q}) --run <(cat {r}) --min-rel {min_rel} "
                           f"--json --per-query {pq}")
                proc = subprocess.run(["bash", "-c", command], capture_output=True, timeout=60)
            results.append(scores_of(proc, pq))
        ours, per_query = results[0]
        assert all(result == results[0] for result in results[1:])
        assert (ours["qrels_lines"], ours["run_lines"]) == expected_counts(qrels, run)
        check_scores(ours, per_query, qrels, run, min_rel, folder, per_query_digits=6)  # the TSV's 6 places


@pytest.mark.parametrize("a, b", [("1e-300", "0"), ("1e39", "1e40"), ("0.3", "0.30000000000000004")])
def test_scores_equal_in_single_precision_tie_for_ndcg_and_recall_as_in_trec_eval(tmp_path, a, b):
    """trec_eval (so pytrec_eval, ir_measures' nDCG and R) holds a score as a C float; the MS MARCO script (RR) as a
    double: the same two scores tie for one and not for the other."""
    qrels, run = [("q", "a", 1)], [("q", "a", 1, a), ("q", "b", 2, b)]
    ours = evaluate.evaluate({"q": {"a": 1}}, {"q": {"a": float(a), "b": float(b)}}, min_rel=1, per_query=(per := {}))
    check_scores(ours, per, qrels, run, 1, tmp_path)
    assert per["q"]["nDCG@10"] == pytest.approx(1 / math.log2(3))  # a tie: b (descending) first


def test_a_qrels_pair_given_twice_is_scored_as_ir_measures_scores_it_and_said(tmp_path):
    """The issue's case: grade 3 then 0 of the pair the run puts first. ir_measures: MRR@10 1.0 (its RR counts
    the pair relevant when any line is), nDCG@10 0 (pytrec_eval gets the last grade)."""
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.trec"
    qrels.write_text("q1 0 a 3\nq1 0 b 2\nq1 0 a 0\n")
    run.write_text("q1 Q0 a 1 2.0 r\nq1 Q0 c 2 1.5 r\nq1 Q0 b 3 1.0 r\n")
    proc = run_script("--qrels", qrels, "--run", run, text=True)
    assert proc.returncode == 0 and proc.stderr == ""
    out = dict(line.split("\t", 1) for line in proc.stdout.splitlines())
    got, aggregate = reference([("q1", "a", 3), ("q1", "b", 2), ("q1", "a", 0)],
                               [("q1", "a", 1, "2.0"), ("q1", "c", 2, "1.5"), ("q1", "b", 3, "1.0")], 2, tmp_path)
    assert aggregate["MRR@10"] == 1.0
    assert [float(out[m]) for m in evaluate.MEASURES] == pytest.approx([aggregate[m] for m in evaluate.MEASURES],
                                                                       abs=5e-5)
    assert out["qrels"] == ("3 lines read, 1 repeating a (query, passage), 1 of them with another grade (nDCG@10 and "
                            "Recall@100 take the last grade, MRR@10 counts the pair relevant when any of its lines "
                            "is, as ir_measures)")
    assert "run" not in out  # nothing repeated, no header


# -- every path a user can name: one line, a non-zero exit, never a traceback or a hang ----------------------


def _tar_gz(folder: Path, text: bytes) -> bytes:
    import tarfile

    (folder / "inner").write_bytes(text)
    with tarfile.open(folder / "x.tar.gz", "w:gz") as tar:
        tar.add(folder / "inner", arcname="inner")
    return (folder / "x.tar.gz").read_bytes()


def _zip(folder: Path, text: bytes) -> bytes:
    import zipfile

    with zipfile.ZipFile(folder / "x.zip", "w") as z:
        z.writestr("inner", text)
    return (folder / "x.zip").read_bytes()


def _parquet(folder: Path, _) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": [1]}), folder / "x.parquet")
    return (folder / "x.parquet").read_bytes()


GOOD = {"--run": b"q1 Q0 a 1 1.0 r\n", "--qrels": b"q1 0 a 3\n"}
# each a maker of the bad file from a good one's text, and the words of its refusal
BAD_FILES = {
    "a tar.gz": (_tar_gz, "gzip-compressed, and inside a tar archive: extract the file from it first"),
    "a zip": (_zip, "a zip archive: unzip the file from it first"),
    "zstd": (lambda _, t: b"\x28\xb5\x2f\xfd" + b"\0" * 20, "zstd-compressed: decompress it first (zstd -d)"),
    "parquet": (_parquet, "a Parquet file, not text"),
    "gzip twice": (lambda _, t: gzip.compress(gzip.compress(t)), "gzip-compressed twice (gzip inside)"),
    "a cut gzip": (lambda _, t: gzip.compress(t * 500)[:-30], "cannot be read as gzip"),
    "a gzip with garbage after it": (lambda _, t: gzip.compress(t) + b"garbage", "cannot be read as gzip"),
    "a cut xz": (lambda _, t: lzma.compress(t * 500)[:-30], "cannot be read as xz"),
    "a cut bzip2": (lambda _, t: bz2.compress(t * 500)[:-30], "cannot be read as bzip2"),
    "utf-16": (lambda _, t: t.decode().encode("utf-16"), "UTF-16 text (by its byte order mark): re-encode it as UTF-8"),
    "utf-32": (lambda _, t: t.decode().encode("utf-32"), "UTF-32 text (by its byte order mark): re-encode it as UTF-8"),
    "utf-16 without a mark": (lambda _, t: t.decode().encode("utf-16-le"), "a NUL character"),
    "a png": (lambda _, t: b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", "not UTF-8 text"),
    "latin-1": (lambda _, t: t.replace(b"a", b"caf\xe9"), "not UTF-8 text"),
    "a line without end": (lambda _, t: b"x" * (evaluate.MAX_LINE + 10), "a line longer than"),
}


@pytest.mark.parametrize("kind", list(BAD_FILES))
@pytest.mark.parametrize("which", ["--run", "--qrels"])
def test_a_file_that_is_no_trec_text_is_one_line_naming_it(tmp_path, kind, which):
    make, words = BAD_FILES[kind]
    bad = tmp_path / "bad.file"
    bad.write_bytes(make(tmp_path, GOOD[which]))
    args = {}
    for option, text in GOOD.items():
        (tmp_path / option[2:]).write_bytes(text)
        args[option] = str(tmp_path / option[2:])
    args[which] = str(bad)
    proc = run_script("--qrels", args["--qrels"], "--run", args["--run"], text=True, errors="replace")
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.startswith(f"{bad}") and words in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    # and through a pipe: the same line, the pipe named as given
    with Pipe(bad.read_bytes()) as path:
        proc = subprocess.run([sys.executable, SCRIPT, *(a.replace(str(bad), path) for a in
                                                         ["--qrels", args["--qrels"], "--run", args["--run"]])],
                              capture_output=True, text=True, errors="replace", timeout=60, pass_fds=[int(path[8:])])
    assert proc.returncode == 1 and proc.stderr.startswith(path) and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_paths_that_are_no_file_are_one_line(tmp_path):
    run, qrels = tmp_path / "r.trec", tmp_path / "q.qrels"
    run.write_bytes(GOOD["--run"])
    qrels.write_text("q1 0 a 3\n")
    cases = [(["--qrels", tmp_path, "--run", run], f"{tmp_path}: a folder, not a file"),
             (["--qrels", qrels, "--run", tmp_path], f"{tmp_path}: a folder, not a file"),
             (["--qrels", tmp_path / "nope", "--run", run], f"{tmp_path / 'nope'}: no such file"),
             (["--qrels", qrels, "--run", tmp_path / "nope"], f"{tmp_path / 'nope'}: no such file. The run is yours"),
             (["--qrels", "-", "--run", "-"], "-: standard input can be one file only"),
             (["--qrels", "/dev/zero", "--run", run], "/dev/zero, line 1: a NUL character")]
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.trec"
        locked.write_bytes(GOOD["--run"])
        locked.chmod(0)
        cases.append((["--qrels", qrels, "--run", locked], f"{locked}: cannot be read (Permission denied)"))
    for args, words in cases:
        proc = run_script(*args, text=True, stdin=subprocess.DEVNULL)
        assert proc.returncode == 1 and proc.stderr.startswith(words), (args, proc.stderr)
        assert proc.stderr.count("\n") == 1, proc.stderr


def test_a_terminal_on_stdin_is_refused_not_waited_for(tmp_path):
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 a 3\n")
    primary, secondary = pty.openpty()
    try:
        for run in ("-", "/dev/stdin"):
            proc = run_script("--qrels", qrels, "--run", run, text=True, stdin=secondary)
            assert proc.returncode == 1 and proc.stderr.startswith(f"{run}: a terminal: pipe the file in")
    finally:
        os.close(primary)
        os.close(secondary)


def test_per_query_creates_its_folder_writes_whole_and_refuses_a_folder(tmp_path):
    run, qrels = tmp_path / "r.trec", tmp_path / "q.qrels"
    run.write_bytes(GOOD["--run"])
    qrels.write_text("q1 0 a 3\n")
    out = tmp_path / "new" / "deeper" / "pq.tsv"
    proc = run_script("--qrels", qrels, "--run", run, "--per-query", out, text=True)
    assert proc.returncode == 0 and out.read_text() == "query_id\tMRR@10\tnDCG@10\tRecall@100\nq1\t1.000000" \
                                                       "\t1.000000\t1.000000\n"
    assert sorted(p.name for p in out.parent.iterdir()) == ["pq.tsv"]  # no temporary file left
    proc = run_script("--qrels", qrels, "--run", run, "--per-query", tmp_path, text=True)
    assert proc.returncode == 1 and proc.stderr == f"{tmp_path}: a folder: name a file in it\n"
    proc = run_script("--qrels", qrels, "--run", run, "--per-query", run / "pq.tsv", text=True)
    assert proc.returncode == 1 and proc.stderr.startswith(f"{run / 'pq.tsv'}: cannot be written (")
    export = tmp_path / "elsewhere" / "train.qrels"
    proc = run_script("--export-train-qrels", export, "--package", tmp_path, text=True)
    assert proc.returncode == 1 and "qrels/train.parquet: no such file" in proc.stderr
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels/train.parquet").write_bytes(b"PAR1 not really")
    proc = run_script("--export-train-qrels", export, "--package", tmp_path, text=True)
    assert proc.returncode == 1 and "cannot be read as the release's Parquet" in proc.stderr
    assert proc.stderr.count("\n") == 1 and not export.exists()


def test_a_reader_that_stops_early_ends_it_without_a_traceback(tmp_path):
    run, qrels = tmp_path / "r.trec", tmp_path / "q.qrels"
    run.write_text("".join(f"q{i} Q0 a 1 1.0 r\n" for i in range(20000)))
    qrels.write_text("".join(f"q{i} 0 a 3\n" for i in range(20000)))
    proc = subprocess.Popen([sys.executable, SCRIPT, "--qrels", qrels, "--run", run, "--per-query", "-"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline() == b"query_id\tMRR@10\tnDCG@10\tRecall@100\n"
    proc.stdout.close()
    assert proc.wait(timeout=60) == 1 and b"Traceback" not in proc.stderr.read()
    proc.stderr.close()
