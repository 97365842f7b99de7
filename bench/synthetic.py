"""Synthetic collections of MS MARCO's shape for the benches, seeded, written straight to a passage store.

Passage lengths are drawn from the real MS MARCO sample (../shared/data/msmarco-passage-sample beside the checkout:
~56 words a passage) when it is there, else uniform 30-82 words. Words follow a two-regime Zipf law (below):
the sample's words, most frequent first, then made-up ones for the long tail, so that a bigger
collection meets more distinct words, as a real one does. Memory and process
measurements: /proc/self/status (RssAnon is private memory; RssFile is file pages, the page cache's,
shared by the processes that map the same file).
"""

from __future__ import annotations

import collections
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "workflow_scripts"))

from irdata.passage_store import write_passage_store  # noqa: E402

SAMPLE = ROOT.parent / "shared/data/msmarco-passage-sample/collection.tsv"
MSMARCO = 8_841_823
# word frequencies: Zipf (exponent 1) over the HEAD_RANKS most frequent words, a steeper power law
# beyond; with these, a collection of 8.8M passages meets ~2.4M distinct words, 26.7k passages ~100k
# (the real sample: 46k), so vocabulary-sized costs grow with the collection as in MS MARCO
HEAD_RANKS = 10_000
TAIL_EXPONENT = 1.75
CHUNK = 100_000


def _sample_words_and_lengths():
    if not SAMPLE.is_file():
        return [], np.arange(30, 83)
    counts, lengths = collections.Counter(), []
    with open(SAMPLE, encoding="utf-8") as fh:
        for line in fh:
            words = re.findall(r"[a-z]+", line.split("\t", 1)[-1].lower())
            counts.update(words)
            lengths.append(len(words))
    return [w for w, _ in counts.most_common()], np.array(lengths)


def _words_and_lengths():
    words, lengths = _sample_words_and_lengths()
    return words + [f"zq{i}" for i in range(len(words), HEAD_RANKS)], lengths


def _draw_ranks(rng, size: int, head_cdf: np.ndarray, head_mass: float) -> np.ndarray:
    """Word ranks (0-based): Zipf exponent 1 up to HEAD_RANKS, a Pareto tail of TAIL_EXPONENT beyond."""
    ranks = np.searchsorted(head_cdf, rng.random(size))
    tail = rng.random(size) >= head_mass
    pareto = HEAD_RANKS * (1 - rng.random(int(tail.sum()))) ** (-1 / (TAIL_EXPONENT - 1))
    ranks[tail] = np.minimum(pareto, 2**62).astype(np.int64)
    return ranks


def _head():
    weights = 1.0 / np.arange(1, HEAD_RANKS + 1)
    head = weights.sum()
    return np.cumsum(weights) / head, head / (head + 1 / (TAIL_EXPONENT - 1))  # tail mass, continuous


def synthetic_queries(n: int, seed: int = 1) -> list[str]:
    """2-5 words of frequency ranks 50-5,000 (the sample's real words), like short web queries."""
    words, _ = _words_and_lengths()
    rng = np.random.default_rng(seed)
    return [" ".join(words[w] for w in rng.integers(50, 5000, rng.integers(2, 6))) for _ in range(n)]


def synthetic_table(n: int, seed: int = 0, first_id: int = 0) -> pa.Table:
    """n passages with ids first_id.. (strings of integers, as MS MARCO's), in CHUNK-row pieces."""
    words, lengths = _words_and_lengths()
    head_cdf, head_mass = _head()
    rng = np.random.default_rng(seed)
    pieces = []
    for start in range(0, n, CHUNK):
        m = min(CHUNK, n - start)
        sizes = rng.choice(lengths, m)
        drawn = [words[r] if r < len(words) else f"zq{r}" for r in
                 _draw_ranks(rng, int(sizes.sum()), head_cdf, head_mass).tolist()]
        ends = np.cumsum(sizes).tolist()
        texts = [" ".join(drawn[e - s:e]) for s, e in zip(sizes.tolist(), ends)]
        pieces.append(pa.table({"id": pa.array([str(first_id + start + i) for i in range(m)]),
                                "text": pa.array(texts, pa.large_string())}))
    return pa.concat_tables(pieces)


def write_synthetic_store(path: Path, n: int, seed: int = 0) -> dict:
    table = synthetic_table(n, seed)
    stats = write_passage_store(table, path)
    stats["words_per_passage"] = round(float(np.mean([t.count(" ") + 1 for t in table.column("text")
                                                      .slice(0, 10_000).to_pylist()])), 1)
    return stats


def write_tsv(table: pa.Table, path: Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for batch in table.to_batches(CHUNK):
            fh.writelines(f"{i}\t{t}\n" for i, t in zip(batch.column(0).to_pylist(), batch.column(1).to_pylist()))


def tsv_text_store(path):
    """The passage store's named baseline: the collection TSV parsed whole into a TextStore, as the LLM
    jobs held it before the store."""
    from irdata.annotate.passages import TextStore
    from irdata.sources.msmarco import read_collection

    table = read_collection(path)
    return TextStore(table.column("passage_id"), table.column("text"))


def memory_mb() -> dict:
    """This process's resident memory now: private (anonymous) and file-backed, in MB."""
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("RssAnon", "RssFile")):
                out[line.split(":")[0]] = int(line.split()[1]) / 1024
    return {"anon": out["RssAnon"], "file": out["RssFile"]}


def peak_mb() -> float:
    """Peak resident memory of this process (VmHWM: unlike ru_maxrss, not inherited across exec)."""
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmHWM")) / 1024


def run_fresh(module: str, function: str, *args) -> dict:
    """Run bench/<module>.py's function(*args) in a fresh interpreter (JSON in and out).

    Fresh, not forked: a fork inherits this process's allocator arenas, whose freed pages it would
    reuse without growing its RSS, and a job starts as a new process anyway. Returns the function's
    result, the call's seconds, and the process's peak RSS (MB), imports included, as SLURM sees it.
    """
    code = ("import json, sys, time; sys.path.insert(0, sys.argv[1]); import synthetic; import " + module + " as m; "
            "start = time.perf_counter(); result = m." + function + "(*json.loads(sys.argv[2])); "
            "seconds = time.perf_counter() - start; "
            "print('\\nRESULT ' + json.dumps({'result': result, 'seconds': seconds, 'peak_mb': synthetic.peak_mb()}))")
    proc = subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), json.dumps(args)],
                          capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError(f"{module}.{function} failed:\n{proc.stderr[-4000:]}")
    return json.loads([line for line in proc.stdout.splitlines() if line.startswith("RESULT ")][-1][7:])


def linear(sizes: list[int], values: list[float], at: int = MSMARCO) -> float:
    """Value at `at` on the line through the two largest sizes (one size: proportional)."""
    if len(sizes) < 2:
        return values[-1] * at / sizes[-1]
    (n0, v0), (n1, v1) = sorted(zip(sizes, values))[-2:]
    return v1 + (v1 - v0) / (n1 - n0) * (at - n1)
