"""An agent_search job's memory before its first LLM call: the passage store and memory-mapped
indexes against what the job held before (TextStore, whole faiss index, parsed BM25 vocabulary).

    python bench/bench_agent_job.py [--sizes 300000 1000000] [--shard-queries 500] [--searches 30]
                                    [--kind hnsw_sq8] [--ef-construction 40]

Per size: a synthetic collection (bench/synthetic.py) as a passage store and as collection.tsv; its
BM25 index (the project's build); a dense index of `--kind` (the kind the config gives the full
MS MARCO) over synthetic unit vectors labelled as the configured model's (their values do not change
memory; ef_construction is lowered only to make the bench quicker, the graph's size is M's). Then
the job, in a fresh interpreter, step by step as agent_search runs: its imports; the passages; the
Searcher (BM25 and dense indexes, MiniLM on one thread); prepare() of the shard's queries; the
first searches of its episodes (hybrid, BM25 and dense, snippets fetched). The named baseline is
the job as it was, in the same run: TextStore.collection of the TSV, the faiss index read whole and
the BM25 vocabulary parsed from JSON (the old searcher's loads), beside the same model.

Private memory (RssAnon) is what each job pays; file-backed pages (RssFile: the store and index
files) are the page cache, shared by the jobs of a node and reclaimable. Extrapolated to 8,841,823
passages on the line through the two sizes.
"""

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_dense import vectors  # noqa: E402
from synthetic import (  # noqa: E402
    MSMARCO,
    linear,
    memory_mb,
    peak_mb,
    run_fresh,
    synthetic_queries,
    synthetic_table,
    write_tsv,
)

from irdata.passage_store import write_passage_store  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def settings():
    from snakemake.utils import validate

    out = {}
    validate(out, str(ROOT / "schemas/retrieval.schema.yaml"))
    return out


def build_bm25(store, out):
    from irdata.retrieval.bm25 import build_bm25_index

    return build_bm25_index(store, Path(out) / "bm25", settings()["bm25"], show_progress=False)


def build_dense(store, out, n, kind, ef_construction):
    """index_dense over synthetic vectors labelled as the configured model's (one shard)."""
    from irdata.passage_store import PassageStore
    from irdata.retrieval.dense import build_dense_index, model_settings

    cfg = settings()["dense"]
    out = Path(out)
    npy, meta = out / "e.npy", out / "e.json"
    np.save(npy, vectors(n, 0))
    meta.write_text(json.dumps({"shard": 0, "shards": 1, "start": 0, "end": n, "rows": n, "dim": 384,
                                "ids_sha256": PassageStore(store).ids_sha256, **model_settings(cfg)}))
    dense_cfg = {**cfg, "hnsw_threshold": 1, "compressed_threshold": 1 if kind != "hnsw" else n + 1,
                 "compressed_index": kind if kind != "hnsw" else cfg["compressed_index"],
                 "ef_construction": ef_construction, "recall_queries": 100}
    stats = build_dense_index(store, [npy], [meta], out / "dense", dense_cfg, show_progress=False)
    npy.unlink()
    return {**stats, "settings": dense_cfg, "end": memory_mb()}


def job(mode, passages, index_dir, dense_cfg, shard_queries, searches):
    """agent_search up to its first LLM call; memory after each step."""
    steps = {"start": memory_mb()}
    from synthetic import tsv_text_store

    import irdata.annotate.agent  # noqa: F401  (what agent_search imports)
    from irdata.passage_store import PassageStore
    from irdata.retrieval.search import Searcher

    steps["imports"] = memory_mb()
    store = PassageStore(passages) if mode == "store" else tsv_text_store(passages)
    steps["passages"] = memory_mb()
    cfg = {**settings(), "dense": dense_cfg}
    searcher = Searcher(cfg, bm25_dir=Path(index_dir) / "bm25", dense_dir=Path(index_dir) / "dense", threads=1)
    held = []
    if mode == "textstore":  # what the old searcher loaded on top: the whole faiss index, the JSON vocabulary
        import faiss

        held = [faiss.read_index(str(Path(index_dir) / "dense/index.faiss")),
                json.loads((Path(index_dir) / "bm25/vocab.index.json").read_text(encoding="utf-8"))]
    steps["searcher"] = memory_mb()
    searcher.prepare(shard_queries)
    steps["prepared"] = memory_mb()
    start = time.perf_counter()
    for query in shard_queries[:searches]:
        for hits in (searcher.hybrid(query, k=5), searcher.bm25(query, k=5), searcher.dense(query, k=5)):
            [store.get(pid) for pid in hits.ids.tolist()]
    search_s = (time.perf_counter() - start) / searches
    steps["searched"] = memory_mb()
    return {"steps": steps, "peak MB": peak_mb(), "search s": search_s, "held": len(held)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[300_000, 1_000_000])
    parser.add_argument("--shard-queries", type=int, default=500)
    parser.add_argument("--searches", type=int, default=30)
    parser.add_argument("--kind", default="hnsw_sq8", choices=["hnsw", "hnsw_sq8", "ivf_pq"])
    parser.add_argument("--ef-construction", type=int, default=40)
    args = parser.parse_args()
    queries = synthetic_queries(args.shard_queries, seed=5)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            root = Path(tmp) / str(n)
            root.mkdir()
            table = synthetic_table(n)
            write_tsv(table, root / "collection.tsv")
            write_passage_store(table, root / "passages.arrow")
            del table
            bm25 = run_fresh("bench_agent_job", "build_bm25", str(root / "passages.arrow"), str(root))
            dense = run_fresh("bench_agent_job", "build_dense", str(root / "passages.arrow"), str(root), n,
                              args.kind, args.ef_construction)
            dense_cfg = dense["result"].pop("settings")
            print(n, f"BM25 build {bm25['seconds']:.0f} s, peak {bm25['peak_mb']:.0f} MB; dense ({args.kind}) build "
                  f"{dense['seconds']:.0f} s, peak {dense['peak_mb']:.0f} MB: {dense['result']}", flush=True)
            new = run_fresh("bench_agent_job", "job", "store", str(root / "passages.arrow"), str(root),
                            dense_cfg, queries, args.searches)["result"]
            old = run_fresh("bench_agent_job", "job", "textstore", str(root / "collection.tsv"), str(root),
                            dense_cfg, queries, args.searches)["result"]
            rows.append({"n": n, "new": new, "old": old})
            for name, run in (("store + mmap", new), ("before", old)):
                steps = run["steps"]
                print(f"  {name}: " + ", ".join(f"{step} {m['anon']:.0f}/{m['file']:.0f}" for step, m in steps.items())
                      + f" MB (private/file); peak {run['peak MB']:.0f} MB; {run['search s'] * 1000:.0f} ms "
                        "per query (3 searches + snippets)", flush=True)
            for d in (root / "bm25", root / "dense"):
                for f in d.iterdir():
                    f.unlink()

    print("\n| passages | job | imports | + passages | + searcher (indexes, model) | + prepare | + searches "
          "| private MB | file-backed MB | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        for name, run in (("store + mmap", r["new"]), ("before (TextStore, whole)", r["old"])):
            s = run["steps"]
            d = [s[b]["anon"] - s[a]["anon"] for a, b in zip(list(s)[:-1], list(s)[1:])]
            print(f"| {r['n']:,} | {name} | {d[0]:.0f} | {d[1]:.0f} | {d[2]:.0f} | {d[3]:.0f} | {d[4]:.0f} "
                  f"| {s['searched']['anon']:.0f} | {s['searched']['file']:.0f} | {run['peak MB']:.0f} |")
    sizes = [r["n"] for r in rows]
    private = {who: linear(sizes, [r[who]["steps"]["searched"]["anon"] for r in rows]) for who in ("new", "old")}
    files = linear(sizes, [r["new"]["steps"]["searched"]["file"] for r in rows])
    peak = {who: linear(sizes, [r[who]["peak MB"] for r in rows]) for who in ("new", "old")}
    print(f"\nExtrapolated to MS MARCO ({MSMARCO:,} passages) on the line through {sizes[-2:]}: private memory "
          f"before the first LLM call ~{private['new'] / 1024:.2f} GB with the store and mapped indexes (target "
          f"< 4 GB) vs ~{private['old'] / 1024:.1f} GB before; peak RSS ~{peak['new'] / 1024:.2f} vs "
          f"~{peak['old'] / 1024:.1f} GB; file-backed pages touched ~{files / 1024:.2f} GB (page cache, shared). "
          f"Jobs per 128 GB node by private memory: ~{128 * 1024 // max(private['new'], 1):.0f} vs "
          f"~{128 * 1024 // max(private['old'], 1):.0f}.")


if __name__ == "__main__":
    main()
