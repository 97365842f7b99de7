"""Dense retrieval at scale: encoding, query vectors in batches, and every index kind against exact search.

    python bench/bench_dense.py [--sizes 100000 300000] [--queries 200] [--kinds flat hnsw hnsw_sq8 ivf_pq]
                                [--ef-search 64 160] [--nprobe 16 64] [--encode 256]

Encoding (torch on one thread, as a job sharing a node has): 256 real MS MARCO passages (the shared
sample when present, else synthetic text) through the project's encode_passages against the raw
sentence-transformers call (the named baseline); then queries one model call each (how dense()
encoded them before) against DenseIndex.query_vectors (what Searcher.prepare does: one batched call).

Search: synthetic unit vectors with the low intrinsic dimension of text embeddings (32 latent
dimensions mapped into 384, plus noise), indexed by the project's build_faiss as each kind with the
config defaults (HNSW M and ef_construction, SQ8, IVF-PQ lists / pq_m, trained on a seeded sample),
exact IndexFlatIP being the baseline: recall@100 against exact search of held-out query vectors at
each ef_search / nprobe, queries/s, bytes on disk, and in a fresh process the private memory of
opening the index whole (faiss.read_index) and memory-mapped (IO_FLAG_MMAP_IFC), as searchers do.
Extrapolations to the full MS MARCO (8,841,823 passages) are printed last.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import faiss
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import MSMARCO, SAMPLE, memory_mb, run_fresh  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DIM = 384
QUERIES = ROOT.parent / "shared/data/msmarco-passage-sample/queries.dl19.tsv"


def settings():
    from snakemake.utils import validate

    out = {}
    validate(out, str(ROOT / "schemas/retrieval.schema.yaml"))
    return out


def bench_encoding(cfg, n, tmp):
    import pyarrow as pa
    import torch

    from irdata.passage_store import PassageStore, write_passage_store
    from irdata.retrieval.dense import DenseIndex, build_dense_index, encode_passages, load_model

    torch.set_num_threads(1)
    if SAMPLE.is_file():
        write_passage_store(SAMPLE, tmp / "sample.arrow")
        texts = PassageStore(tmp / "sample.arrow").slice_texts(1000, 1000 + n)
    else:
        rng = np.random.default_rng(0)
        words = np.array("the of a bond river energy cell war city music law price water bank tax plant".split())
        texts = [" ".join(rng.choice(words, 60)) for _ in range(n)]
    write_passage_store(pa.table({"id": [str(i) for i in range(n)], "text": texts}), tmp / "enc.arrow")
    model = load_model(cfg)
    model.encode_document(texts[:32], batch_size=cfg["batch_size"])  # warm-up
    start = time.perf_counter()
    model.encode_document(texts, batch_size=cfg["batch_size"], normalize_embeddings=True)
    raw = n / (time.perf_counter() - start)
    start = time.perf_counter()
    encode_passages(tmp / "enc.arrow", tmp / "e.npy", tmp / "e.json", 0, 1, cfg, show_progress=False)
    wrapped = n / (time.perf_counter() - start)  # includes loading the model, as a rule job does
    queries = ([line.split("\t", 1)[1].strip() for line in QUERIES.read_text(encoding="utf-8").splitlines()]
               if QUERIES.is_file() else [" ".join(t.split()[:6]) for t in texts])[:200]
    build_dense_index(tmp / "enc.arrow", [tmp / "e.npy"], [tmp / "e.json"], tmp / "dense", cfg, show_progress=False)
    index = DenseIndex(tmp / "dense", cfg, model=model)
    start = time.perf_counter()
    for query in queries:
        index.encode_queries([query])
    one_by_one = len(queries) / (time.perf_counter() - start)
    start = time.perf_counter()
    index.query_vectors(queries)
    batched = len(queries) / (time.perf_counter() - start)
    start = time.perf_counter()
    index.query_vectors(queries)
    cached = len(queries) / (time.perf_counter() - start)
    return raw, wrapped, one_by_one, batched, cached


def vectors(n, seed, latent=32, noise=0.35, chunk=200_000):
    rng = np.random.default_rng(seed)
    mix = np.random.default_rng(12345).standard_normal((latent, DIM)).astype(np.float32)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, chunk):
        m = min(chunk, n - start)
        x = rng.standard_normal((m, latent), dtype=np.float32) @ mix
        x += noise * np.sqrt(latent) * rng.standard_normal((m, DIM), dtype=np.float32)
        out[start:start + m] = x / np.linalg.norm(x, axis=1, keepdims=True)
    return out


def open_index(path, mmap):
    """Private and file-backed memory of opening an index and running 100 queries, fresh process."""
    base = memory_mb()
    start = time.perf_counter()
    index = faiss.read_index(path, faiss.IO_FLAG_MMAP_IFC if mmap else 0)
    opened = time.perf_counter() - start
    after_open = memory_mb()
    index.search(vectors(100, 7), 100)
    after = memory_mb()
    return {"open s": opened, "open anon MB": after_open["anon"] - base["anon"],
            "anon MB": after["anon"] - base["anon"], "file MB": after["file"] - base["file"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 300_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--kinds", nargs="+", default=["flat", "hnsw", "hnsw_sq8", "ivf_pq"])
    parser.add_argument("--ef-search", type=int, nargs="+", default=[64, 160])
    parser.add_argument("--nprobe", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--encode", type=int, default=256, help="passages to encode (0: skip)")
    args = parser.parse_args()
    from irdata.retrieval.dense import EFFORT_SETTING, build_faiss, search_params

    cfg = settings()["dense"]
    print(f"faiss {faiss.__version__}, {faiss.omp_get_max_threads()} threads; HNSW M={cfg['hnsw_m']}, "
          f"ef_construction={cfg['ef_construction']}; IVF-PQ lists={cfg['ivf_lists']}, pq_m={cfg['pq_m']}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if args.encode:
            raw, wrapped, one, batched, cached = bench_encoding(cfg, args.encode, tmp)
            print(f"encode ({cfg['model']}, CPU, 1 thread, batch {cfg['batch_size']}): raw sentence-transformers "
                  f"{raw:.1f} passages/s, encode_passages {wrapped:.1f} passages/s (ratio {wrapped / raw:.2f}, "
                  f"includes model load); full MS MARCO on one such core ~{MSMARCO / raw / 3600:.0f} h", flush=True)
            print(f"query vectors (1 thread): one model call each {one:.0f} q/s, query_vectors/prepare batched "
                  f"{batched:.0f} q/s ({batched / one:.1f}x), from the cache {cached:.0f} q/s", flush=True)
        rows = []
        for n in args.sizes:
            base, queries = vectors(n, 0), vectors(args.queries, 1)
            exact = faiss.IndexFlatIP(DIM)
            exact.add(base)
            start = time.perf_counter()
            _, truth = exact.search(queries, 100)
            exact_qps = len(queries) / (time.perf_counter() - start)
            del exact
            for kind in args.kinds:
                forced = {"flat": (n + 1, n + 1), "hnsw": (1, n + 1)}.get(kind, (1, 1))
                kind_cfg = {**cfg, "hnsw_threshold": forced[0], "compressed_threshold": forced[1],
                            "compressed_index": kind if kind in ("hnsw_sq8", "ivf_pq") else cfg["compressed_index"]}
                start = time.perf_counter()
                index = build_faiss([base], kind_cfg, show_progress=False)
                build_s = time.perf_counter() - start
                path = tmp / f"{kind}-{n}.faiss"
                faiss.write_index(index, str(path))
                whole = run_fresh("bench_dense", "open_index", str(path), False)["result"]
                mapped = run_fresh("bench_dense", "open_index", str(path), True)["result"]
                swept = {"hnsw": args.ef_search, "hnsw_sq8": args.ef_search, "ivf_pq": args.nprobe}.get(kind, [0])
                for value in swept:
                    params = search_params(index, kind, {EFFORT_SETTING[kind]: value}, 100) if value else None
                    start = time.perf_counter()
                    _, found = index.search(queries, 100, params=params)
                    qps = len(queries) / (time.perf_counter() - start)
                    recall = float(np.mean([len(np.intersect1d(f, t)) / 100 for f, t in zip(found, truth)]))
                    rows.append({"n": n, "kind": kind, "param": value, "build s": build_s, "MB": path.stat().st_size
                                 / 2**20, "q/s": qps, "exact q/s": exact_qps, "recall": recall,
                                 "whole": whole, "mmap": mapped})
                    print({k: (round(v, 3) if isinstance(v, float) else v) for k, v in rows[-1].items()}, flush=True)
                path.unlink()
                del index
            del base
    print("\n| vectors | kind | ef_search / nprobe | build s | index MB | q/s (exact: baseline) | recall@100 vs exact "
          "| private MB open+100 queries (whole / mmap) | file-backed MB (mmap) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['n']:,} | {r['kind']} | {r['param'] or '-'} | {r['build s']:.0f} | {r['MB']:.0f} "
              f"| {r['q/s']:.0f} ({r['exact q/s']:.0f}) | {r['recall']:.3f} | {r['whole']['anon MB']:.0f} / "
              f"{r['mmap']['anon MB']:.0f} | {r['mmap']['file MB']:.0f} |")
    n = max(r["n"] for r in rows)
    print(f"\nExtrapolated to MS MARCO ({MSMARCO:,} vectors) in proportion to {n:,} (HNSW build x 1.15 for its "
          "log factor; on this machine's cores, faiss builds in parallel):")
    for kind in args.kinds:
        r = next(r for r in rows if r["n"] == n and r["kind"] == kind)
        scale = MSMARCO / n
        factor = 1.15 if kind.startswith("hnsw") else 1.0
        print(f"- {kind}: index ~{r['MB'] * scale / 1024:.1f} GB (page cache, shared by a node's jobs when "
              f"memory-mapped), build ~{r['build s'] * scale * factor / 3600:.1f} h")


if __name__ == "__main__":
    main()
