"""Train-query dedup at MS MARCO scale: the columnar implementation against a plain-Python loop.

    python bench/bench_dedup.py [--queries 502910] [--heldout 7000] [--unicode 0.02]

Synthetic queries draw 2-4 words from a Zipfian vocabulary, so natural repeats occur; a share of
them copies held-out texts in other forms (upper case and punctuation; for a `--unicode` share of
the texts, which hold accented words, also decomposed accents, fullwidth letters or a zero-width
space). Both implementations must agree.
"""

import argparse
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow_scripts"))

from irdata.dedup import dedup_train_queries  # noqa: E402
from irdata.heldout import Source  # noqa: E402
from irdata.logs import peak_rss_mb  # noqa: E402

ACCENTED = ["café", "naïve", "straße", "résumé", "ﬁle", "Σίσυφος"]
FORMS = [lambda t: unicodedata.normalize("NFD", t),
         lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),
         lambda t: t.replace(" ", " \u200b", 1)]


def synthetic(n_train, n_heldout, unicode_share=0.0, seed=0):
    rng = np.random.default_rng(seed)
    vocab = np.array([f"w{i}" for i in range(3000)])
    p = 1 / np.arange(1, len(vocab) + 1)
    p /= p.sum()

    def texts(n):
        out = [" ".join(rng.choice(vocab, rng.integers(2, 5), p=p)) for _ in range(n)]
        for i in np.flatnonzero(rng.random(n) < unicode_share):
            out[i] += " " + ACCENTED[rng.integers(len(ACCENTED))]
        return out

    heldout = [t + "?" for t in texts(n_heldout)]
    train = texts(n_train)
    for i in rng.choice(n_train, n_train // 5000, replace=False):
        train[i] = heldout[rng.integers(n_heldout)].upper()
        if not train[i].isascii():
            train[i] = FORMS[rng.integers(len(FORMS))](train[i])
    return (pa.table({"query_id": [str(i) for i in range(n_train)], "text": train}),
            pa.table({"query_id": [f"h{i}" for i in range(n_heldout)], "text": heldout}))


# Default_Ignorable_Code_Point outside Cf (irdata/query_text.py)
_IGNORABLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x2065, 0x3164,
              *range(0xFE00, 0xFE10), 0xFFA0, *range(0xFFF0, 0xFFF9), *range(0xE0000, 0xE1000)}


def baseline_loop(train, heldout):
    """The obvious per-row loop with dicts: the named baseline."""
    def norm(t):
        t = "".join(c for c in t if unicodedata.category(c) != "Cf" and ord(c) not in _IGNORABLE)
        t = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", t).casefold())
        t = "".join(c for c in t if not unicodedata.category(c).startswith("P"))
        return " ".join(t.split())

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
    parser.add_argument("--unicode", type=float, default=0.02, help="share of texts with non-ASCII words")
    args = parser.parse_args()
    train, heldout = synthetic(args.queries, args.heldout, args.unicode)

    start = time.perf_counter()
    result = dedup_train_queries((Source("train_queries", "train"), train), [(Source("dev_queries", "dev"), heldout)])
    columnar = time.perf_counter() - start
    start = time.perf_counter()
    kept, excluded = baseline_loop(train, heldout)
    loop = time.perf_counter() - start

    assert result.collection == kept, "columnar and loop disagree on the kept queries"
    assert list(result.excluded[["query_id", "reason", "duplicate_of"]].itertuples(index=False, name=None)) == excluded
    counts = result.excluded["reason"].value_counts().to_dict()
    print(f"{args.queries:,} train queries, {args.heldout:,} held-out, {args.unicode:.0%} of texts non-ASCII; "
          f"excluded {counts}; matched by step {result.steps}")
    print(f"columnar dedup_train_queries: {columnar:6.2f} s")
    print(f"baseline per-row Python loop: {loop:6.2f} s")
    print(f"ratio baseline/columnar: {loop / columnar:.2f}x; peak RSS {peak_rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
