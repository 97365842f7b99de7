"""The passage store against the LLM stages' TextStore.collection (the named baseline), in one run.

    python bench/bench_passage_store.py [--sizes 100000 1000000] [--fetches 1000]

Per size, a synthetic collection (bench/synthetic.py: MS MARCO's passage lengths, Zipfian words) is
written as collection.tsv and as a passage store (the store's write is what validation adds).
Then, each in a fresh interpreter (as a job starts): open it (TextStore.collection parses the TSV
into Arrow plus a pandas hash index; PassageStore maps the file)
and fetch `--fetches` random passages one by one, then all of them in one texts() call. Reported:
seconds, and the process's resident memory growth, private (RssAnon) and file-backed (RssFile: page
cache, shared by every job of a node that maps the store, and reclaimable by the kernel).
Extrapolated to 8,841,823 passages in proportion to the largest size: an upper bound for the store
(opening it reads a footer and the metadata of one record batch per 65,536 rows, whatever else it
holds), about right for TextStore (which parses every line).
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import MSMARCO, memory_mb, run_fresh, synthetic_table, tsv_text_store, write_tsv  # noqa: E402

from irdata.passage_store import PassageStore, write_passage_store  # noqa: E402


def job(kind, source, pids):
    """What an LLM job does with the collection: open it, fetch passages by id."""
    opener = {"textstore": tsv_text_store, "store": PassageStore}[kind]
    base = memory_mb()
    start = time.perf_counter()
    store = opener(source)
    opened = time.perf_counter()
    after_open = memory_mb()
    texts = [store[pid] for pid in pids]
    fetched = time.perf_counter()
    if hasattr(store, "texts"):
        assert store.texts(pids) == texts
    batch = time.perf_counter() - fetched
    after = memory_mb()
    return {"open s": opened - start, "fetch s": fetched - opened, "batch s": batch,
            "open anon MB": after_open["anon"] - base["anon"], "open file MB": after_open["file"] - base["file"],
            "anon MB": after["anon"] - base["anon"], "file MB": after["file"] - base["file"],
            "chars": sum(map(len, texts))}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--fetches", type=int, default=1000)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            table = synthetic_table(n)
            tsv, store = Path(tmp) / f"c{n}.tsv", Path(tmp) / f"s{n}.arrow"
            write_tsv(table, tsv)
            start = time.perf_counter()
            written = write_passage_store(table, store)
            write_s = time.perf_counter() - start
            del table
            pids = [str(i) for i in np.random.default_rng(1).choice(n, args.fetches, replace=False)]
            base = run_fresh("bench_passage_store", "job", "textstore", str(tsv), pids)["result"]
            new = run_fresh("bench_passage_store", "job", "store", str(store), pids)["result"]
            assert base["chars"] == new["chars"]
            rows.append({"n": n, "tsv MB": tsv.stat().st_size / 2**20, "store MB": written["bytes"] / 2**20,
                         "write s": write_s, "base": base, "new": new})
            print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in rows[-1].items()
                   if k not in ("base", "new")}, "\n  TextStore", {k: round(v, 4) for k, v in base.items()},
                  "\n  PassageStore", {k: round(v, 4) for k, v in new.items()}, flush=True)

    print(f"\n| passages | TSV MB | store MB | store write s | open s (TextStore / store) | {args.fetches} fetches s "
          "| private MB after open+fetch (TextStore / store) | file-backed MB (TextStore / store) | open speed-up |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        b, s = r["base"], r["new"]
        print(f"| {r['n']:,} | {r['tsv MB']:.0f} | {r['store MB']:.0f} | {r['write s']:.1f} "
              f"| {b['open s']:.2f} / {s['open s']:.4f} | {b['fetch s']:.3f} / {s['fetch s']:.3f} "
              f"| {b['anon MB']:.0f} / {s['anon MB']:.1f} | {b['file MB']:.0f} / {s['file MB']:.0f} "
              f"| {b['open s'] / s['open s']:.0f}x |")
    last = rows[-1]
    scale = MSMARCO / last["n"]
    at = {key: [last[who][key] * scale for who in ("base", "new")] for key in ("open s", "anon MB", "file MB")}
    per_fetch = [last[who]["fetch s"] * 1e6 / args.fetches for who in ("base", "new")]
    print(f"\nExtrapolated to MS MARCO ({MSMARCO:,} passages) in proportion to {last['n']:,}:")
    print(f"- open: {at['open s'][0]:.1f} s (TextStore) vs {at['open s'][1]:.4f} s (store; target < 1 s)")
    print(f"- private memory after open + {args.fetches} fetches: {at['anon MB'][0]:.0f} MB vs "
          f"{at['anon MB'][1]:.0f} MB (target < 200 MB)")
    print(f"- file-backed (page cache, shared): {at['file MB'][0]:.0f} MB vs {at['file MB'][1]:.0f} MB")
    print(f"- a fetch costs the same at any size (hash / binary search): {per_fetch[0]:.0f} vs {per_fetch[1]:.0f} us")
    print(f"- store write (once, in validation): ~{last['write s'] * scale:.0f} s, "
          f"~{last['store MB'] * scale / 1024:.1f} GB on disk")


if __name__ == "__main__":
    main()
