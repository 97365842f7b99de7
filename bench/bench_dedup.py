"""Train-query dedup at MS MARCO scale: the columnar implementation against a plain-Python loop.

    python bench/bench_dedup.py [--queries 502910] [--heldout 7000]

Synthetic queries draw 4-6 words from a Zipfian vocabulary, so natural repeats occur; a share of
them copies held-out texts with changed case and punctuation. Both implementations must agree.
"""

import argparse
import re
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow_scripts"))

from irdata.dedup import dedup_train_queries  # noqa: E402
from irdata.logs import peak_rss_mb  # noqa: E402


def synthetic(n_train, n_heldout, seed=0):
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(3000)])
    p = 1 / np.arange(1, len(vocab) + 1)
    p /= p.sum()

    def text():
        return " ".join(rng.choice(vocab, rng.integers(2, 5), p=p))

    heldout = [text() + "?" for _ in range(n_heldout)]
    train = [text() for _ in range(n_train)]
    for i in rng.choice(n_train, n_train // 5000, replace=False):
        train[i] = heldout[rng.integers(n_heldout)].upper()
    return (pa.table({"query_id": [str(i) for i in range(n_train)], "text": train}),
            pa.table({"query_id": [f"h{i}" for i in range(n_heldout)], "text": heldout}))


def baseline_loop(train, heldout):
    """The obvious per-row loop with dicts: the named baseline."""
    def norm(t):
        t = "".join(c for c in t.lower() if not unicodedata.category(c).startswith("P"))
        return re.sub(r"\s+", " ", t).strip()

    held = {}
    for qid, t in zip(heldout.column("query_id").to_pylist(), heldout.column("text").to_pylist()):
        held.setdefault(norm(t), qid)
    seen, kept, excluded = {}, [], []
    for qid, t in zip(train.column("query_id").to_pylist(), train.column("text").to_pylist()):
        key = norm(t)
        if key in held:
            excluded.append((qid, "heldout", held[key]))
        elif key in seen:
            excluded.append((qid, "repeat", seen[key]))
        else:
            kept.append(qid)
        seen.setdefault(key, qid)
    return kept, excluded


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--queries", type=int, default=502_910)
    parser.add_argument("--heldout", type=int, default=7_000)
    args = parser.parse_args()
    train, heldout = synthetic(args.queries, args.heldout)

    start = time.perf_counter()
    result = dedup_train_queries(train, [heldout])
    columnar = time.perf_counter() - start
    start = time.perf_counter()
    kept, excluded = baseline_loop(train, heldout)
    loop = time.perf_counter() - start

    assert result.collection == kept, "columnar and loop disagree on the kept queries"
    assert list(result.excluded.itertuples(index=False, name=None)) == excluded
    counts = result.excluded["reason"].value_counts().to_dict()
    print(f"{args.queries:,} train queries, {args.heldout:,} held-out; excluded {counts}")
    print(f"columnar dedup_train_queries: {columnar:6.2f} s")
    print(f"baseline per-row Python loop: {loop:6.2f} s")
    print(f"ratio baseline/columnar: {loop / columnar:.2f}x; peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
