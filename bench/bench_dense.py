"""Dense retrieval at scale: CPU encoding speed, and HNSW against exact inner-product search.

    python bench/bench_dense.py [--sizes 100000 1000000] [--queries 200] [--ef-search 64 160 320]

Encoding: 256 real MS MARCO passages (the shared sample when present, else synthetic text) through
the project's encode_passages against the raw sentence-transformers call (the named baseline).
Search: synthetic unit vectors with the low intrinsic dimension of text embeddings (32 latent
dimensions mapped into 384, plus noise), indexed by the project's build_faiss as exact
(IndexFlatIP, the baseline) and HNSW (M and ef_construction from the config defaults); recall@100
of HNSW against exact at each ef_search, queries/s of both. Extrapolations to the full MS MARCO
(8,841,823 passages) are printed last.
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import faiss
import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow_scripts"))

from snakemake.utils import validate  # noqa: E402

from irdata.logs import peak_rss_mb  # noqa: E402
from irdata.retrieval.common import load_collection  # noqa: E402
from irdata.retrieval.dense import build_faiss, encode_passages, load_model  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT.parent / "shared/data/msmarco-passage-sample/collection.tsv"
MSMARCO = 8_841_823
DIM = 384


def settings():
    out = {}
    validate(out, str(ROOT / "schemas/retrieval.schema.yaml"))
    return out


def passages(n):
    if SAMPLE.is_file():
        return load_collection(SAMPLE).slice(1000, n)
    rng = np.random.default_rng(0)
    words = np.array("the of a bond river energy cell war city music law price water bank tax plant".split())
    return pa.table({"id": [str(i) for i in range(n)],
                     "text": [" ".join(rng.choice(words, 60)) for _ in range(n)]})


def bench_encoding(cfg, n):
    table = passages(n)
    model = load_model(cfg)
    texts = table.column("text").to_pylist()
    model.encode_document(texts[:32], batch_size=cfg["batch_size"])  # warm-up
    start = time.perf_counter()
    model.encode_document(texts, batch_size=cfg["batch_size"], normalize_embeddings=True)
    raw = n / (time.perf_counter() - start)
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        encode_passages(table, Path(tmp) / "e.npy", Path(tmp) / "e.json", 0, 1, cfg, show_progress=False)
        wrapped = n / (time.perf_counter() - start)  # includes loading the model, as a rule job does
    return raw, wrapped


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


def qps(index, queries, k, params=None):
    start = time.perf_counter()
    _, rows = index.search(queries, k, params=params)
    return len(queries) / (time.perf_counter() - start), rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--ef-search", type=int, nargs="+", default=[64, 160, 320])
    parser.add_argument("--encode", type=int, default=256, help="passages to encode (0: skip)")
    args = parser.parse_args()
    cfg = settings()["dense"]
    print(f"faiss {faiss.__version__}, {faiss.omp_get_max_threads()} threads; HNSW M={cfg['hnsw_m']}, "
          f"ef_construction={cfg['ef_construction']}", flush=True)
    if args.encode:
        raw, wrapped = bench_encoding(cfg, args.encode)
        print(f"encode ({cfg['model']}, CPU, batch {cfg['batch_size']}): raw sentence-transformers {raw:.1f} "
              f"passages/s, encode_passages {wrapped:.1f} passages/s (ratio {wrapped / raw:.2f}, includes "
              f"model load); full MS MARCO on this CPU ~{MSMARCO / raw / 3600:.0f} h", flush=True)
    rows = []
    for n in args.sizes:
        base, queries = vectors(n, 0), vectors(args.queries, 1)
        start = time.perf_counter()
        exact = build_faiss([base], {**cfg, "hnsw_threshold": n + 1}, show_progress=False)
        exact_build = time.perf_counter() - start
        exact_qps, truth = qps(exact, queries, 100)
        del exact
        start = time.perf_counter()
        hnsw = build_faiss([base], {**cfg, "hnsw_threshold": 1}, show_progress=True)
        hnsw_build = time.perf_counter() - start
        del base
        for ef in args.ef_search:
            hnsw_qps, found = qps(hnsw, queries, 100, faiss.SearchParametersHNSW(efSearch=ef))
            recall = np.mean([len(np.intersect1d(f, t)) / 100 for f, t in zip(found, truth)])
            rows.append((n, ef, exact_build, hnsw_build, exact_qps, hnsw_qps, recall))
            print(rows[-1], flush=True)
        del hnsw
    print(f"\npeak RSS of the bench: {peak_rss_mb():.0f} MB")
    print("\n| vectors | ef_search | exact build s | HNSW build s | exact q/s | HNSW q/s | HNSW/exact q/s | "
          "recall@100 vs exact |")
    print("|---|---|---|---|---|---|---|---|")
    for n, ef, eb, hb, eq, hq, rec in rows:
        print(f"| {n:,} | {ef} | {eb:.1f} | {hb:.0f} | {eq:.1f} | {hq:.0f} | {hq / eq:.1f}x | {rec:.3f} |")
    n, _, _, hnsw_build, exact_qps, _, _ = rows[-1]
    scale = MSMARCO / n
    graph_gb = MSMARCO * (DIM * 4 + cfg["hnsw_m"] * 2 * 4 * 1.1) / 2**30
    print(f"\nExtrapolated to MS MARCO ({MSMARCO:,} vectors) from {n:,}: "
          f"HNSW build ~{hnsw_build * scale * 1.15 / 3600:.1f} h "
          f"on this machine (linear x 1.15 for the log factor), index ~{graph_gb:.0f} GB in memory; "
          f"exact search ~{exact_qps / scale:.1f} q/s.")


if __name__ == "__main__":
    main()
