"""BM25 at scale: the project's chunked build and memory-mapped searcher against bm25s's one-shot ones.

    python bench/bench_bm25.py [--sizes 100000 1000000 3000000] [--one-shot-max 1000000]
                               [--queries 200] [--reference-queries 20] [--workers 1]

A synthetic collection (bench/synthetic.py: MS MARCO's passage lengths, Zipfian words over a 3M-word
vocabulary, so the vocabulary grows with the collection) is written as a passage store. Each step
runs in a fresh interpreter, so its peak RSS is a job's own (imports included), as SLURM sees it:

- build: the project's build_bm25_index (tokenized in chunks, CSC matrix filled in place; with
  --workers N, its peak is the main process's plus N times a tokenizing process's, measured alone
  on one chunk: an upper bound, as forked workers share their parent's pages), against
  the named baseline, bm25s's own one-shot tokenize + index over every passage with the vocabulary
  then put in sorted order, as the project built it before (up to --one-shot-max passages; it holds
  every token as Python lists). Both must write the same bytes.
- searcher: open time and memory, the project's BM25Index (bm25s arrays memory-mapped, vocabulary
  an Arrow column searched by binary search) against bm25s.BM25.load of the whole index (arrays read
  into memory, JSON vocabulary parsed); top-100 queries/s of both (the scores must agree).
- at 100k passages only: rank_bm25 (the design card's implementation), build and query.

The last lines extrapolate to the full MS MARCO (8,841,823 passages) on the line through the two
largest sizes (time and memory grow with passages, and slightly faster with the vocabulary).
"""

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import MSMARCO, linear, memory_mb, run_fresh, synthetic_queries, write_synthetic_store  # noqa: E402

SCHEMA = Path(__file__).resolve().parents[1] / "schemas/retrieval.schema.yaml"
BM25S_FILES = ["data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy", "vocab.index.json",
               "params.index.json"]


def settings():
    from snakemake.utils import validate

    out = {}
    validate(out, str(SCHEMA))
    return out


def build_chunked(store, out_dir, workers):
    from irdata.retrieval.bm25 import build_bm25_index

    return build_bm25_index(store, out_dir, settings()["bm25"], show_progress=False, workers=workers)


def tokenize_chunk(store):
    """One tokenizing process's work: the first CHUNK_ROWS passages (its peak is a worker's)."""
    from irdata.passage_store import PassageStore
    from irdata.retrieval.bm25 import CHUNK_ROWS, chunk_terms

    return len(chunk_terms(PassageStore(store).slice_texts(0, CHUNK_ROWS), settings()["bm25"])[0])


def build_one_shot(store, out_dir):
    """bm25s's tokenize + index over the whole collection, columns then sorted by token (the old build)."""
    import bm25s
    import scipy.sparse

    from irdata.passage_store import PassageStore
    from irdata.retrieval.bm25 import TOKEN_PATTERN, _stemmer

    cfg = settings()["bm25"]
    texts = PassageStore(store).slice_texts(0, MSMARCO)
    tokens = bm25s.tokenize(texts, lower=True, token_pattern=TOKEN_PATTERN, stopwords=cfg["stopwords"],
                            stemmer=_stemmer(cfg["stemmer"]), show_progress=False)
    del texts
    retriever = bm25s.BM25(k1=cfg["k1"], b=cfg["b"], method="lucene")
    retriever.index(tokens, show_progress=False)
    del tokens
    n, columns = retriever.scores["num_docs"], len(retriever.scores["indptr"]) - 1
    order = sorted((t for t, c in retriever.vocab_dict.items() if c < columns))
    matrix = scipy.sparse.csc_matrix((retriever.scores["data"], retriever.scores["indices"],
                                      retriever.scores["indptr"]), shape=(n, columns))
    matrix = matrix[:, [retriever.vocab_dict[t] for t in order]]
    retriever.scores = {"data": matrix.data, "indices": matrix.indices.astype(np.int32),
                        "indptr": matrix.indptr.astype(np.int64), "num_docs": n}
    retriever.vocab_dict = {t: i for i, t in enumerate(order)} | {"": columns}
    retriever.save(out_dir, show_progress=False)
    return {"postings": len(matrix.data)}


def search(index_dir, queries, mode):
    """Open the index (mmap: the project's searcher; whole: bm25s.BM25.load into memory), run top-100."""
    import bm25s

    from irdata.retrieval.bm25 import tokenize
    from irdata.retrieval.search import Searcher

    cfg = settings()
    base = memory_mb()
    start = time.perf_counter()
    if mode == "mmap":
        searcher = Searcher(cfg, bm25_dir=index_dir)
        opened = time.perf_counter() - start
        after_open = memory_mb()
        begin = time.perf_counter()
        scores = [h.scores.tolist() for h in searcher.bm25_batch(queries, k=100)]
    else:
        retriever = bm25s.BM25.load(index_dir, mmap=False, load_vocab=True)
        opened = time.perf_counter() - start
        after_open = memory_mb()
        begin = time.perf_counter()
        _, raw = retriever.retrieve(tokenize(queries, cfg["bm25"]), k=100, show_progress=False, n_threads=0)
        scores = [s[s > 0].tolist() for s in raw]
    seconds = time.perf_counter() - begin
    after = memory_mb()
    return {"open s": opened, "open anon MB": after_open["anon"] - base["anon"],
            "open file MB": after_open["file"] - base["file"], "anon MB": after["anon"] - base["anon"],
            "q/s": len(queries) / seconds, "scores": scores}


def rank_bm25_reference(store, queries):
    from irdata.passage_store import PassageStore
    from irdata.retrieval.bm25 import tokenize
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from bm25_reference import reference_bm25  # the tests' rank_bm25 reference, one definition

    cfg = settings()["bm25"]
    start = time.perf_counter()
    reference = reference_bm25(tokenize(PassageStore(store).slice_texts(0, MSMARCO), cfg), cfg)
    built = time.perf_counter() - start
    start = time.perf_counter()
    for tokens in tokenize(queries, cfg):
        np.argsort(-reference.get_scores(tokens))[:100]
    return {"build s": built, "q/s": len(queries) / (time.perf_counter() - start)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000, 3_000_000])
    parser.add_argument("--one-shot-max", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--reference-queries", type=int, default=20)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    queries = synthetic_queries(args.queries)
    rows = []
    for n in args.sizes:
        with tempfile.TemporaryDirectory() as tmp:
            store, chunked, one_shot = (str(Path(tmp) / name) for name in ("s.arrow", "chunked", "one_shot"))
            write_synthetic_store(Path(store), n)
            built = run_fresh("bench_bm25", "build_chunked", store, chunked, args.workers)
            row = {"passages": n, "build s": built["seconds"], "tokenize s": built["result"]["tokenize_seconds"],
                   "peak MB": built["peak_mb"], "vocabulary": built["result"]["vocabulary"],
                   "postings": built["result"]["postings"], "index MB": built["result"]["bytes"] / 2**20}
            if args.workers > 1:  # the workers are processes of their own: add theirs
                row["worker peak MB"] = run_fresh("bench_bm25", "tokenize_chunk", store)["peak_mb"]
                row["peak MB"] += args.workers * row["worker peak MB"]
            if n <= args.one_shot_max:
                base = run_fresh("bench_bm25", "build_one_shot", store, one_shot)
                for name in BM25S_FILES:
                    assert (Path(chunked) / name).read_bytes() == (Path(one_shot) / name).read_bytes(), name
                row.update({"one-shot build s": base["seconds"], "one-shot peak MB": base["peak_mb"]})
            mapped = run_fresh("bench_bm25", "search", chunked, queries, "mmap")["result"]
            whole = run_fresh("bench_bm25", "search", chunked, queries, "whole")["result"]
            for ours, theirs in zip(mapped.pop("scores"), whole.pop("scores")):
                assert np.allclose(ours, theirs[: len(ours)], rtol=1e-6) and len(ours) == min(100, len(theirs))
            row.update({f"mmap {k}": v for k, v in mapped.items()} | {f"whole {k}": v for k, v in whole.items()})
            if n <= 100_000:
                ref = run_fresh("bench_bm25", "rank_bm25_reference", store, queries[: args.reference_queries])
                row.update({"rank_bm25 build s": ref["result"]["build s"], "rank_bm25 peak MB": ref["peak_mb"],
                            "rank_bm25 q/s": ref["result"]["q/s"]})
        rows.append(row)
        print({k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}, flush=True)

    print("\n| passages | vocabulary | postings | build s (chunked / one-shot) | build peak MB (chunked / one-shot) "
          "| open s (mmap / whole) | private MB after open (mmap / whole) | top-100 q/s (mmap / whole) "
          "| rank_bm25 build s, peak MB, q/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        one = (f"{r['one-shot build s']:.0f}" if "one-shot build s" in r else "-",
               f"{r['one-shot peak MB']:.0f}" if "one-shot peak MB" in r else "-")
        ref = (f"{r['rank_bm25 build s']:.1f}, {r['rank_bm25 peak MB']:.0f}, {r['rank_bm25 q/s']:.2f}"
               if "rank_bm25 q/s" in r else "-")
        print(f"| {r['passages']:,} | {r['vocabulary']:,} | {r['postings']:,} | {r['build s']:.0f} / {one[0]} "
              f"| {r['peak MB']:.0f} / {one[1]} | {r['mmap open s']:.3f} / {r['whole open s']:.2f} "
              f"| {r['mmap open anon MB']:.0f} / {r['whole open anon MB']:.0f} "
              f"| {r['mmap q/s']:.1f} / {r['whole q/s']:.1f} | {ref} |")
    sizes = [r["passages"] for r in rows]
    at = {key: linear(sizes, [r[key] for r in rows]) for key in ("build s", "peak MB", "mmap open anon MB",
                                                                 "whole open anon MB", "mmap open s", "index MB")}
    print(f"\nExtrapolated to MS MARCO ({MSMARCO:,} passages) on the line through {sizes[-2:]} "
          f"({args.workers} tokenizing process(es)): chunked build ~{at['build s'] / 60:.0f} min, "
          f"peak ~{at['peak MB'] / 1024:.1f} GB (target < 20 GB; bm25s one-shot, measured before: ~25.4 GB); "
          f"index ~{at['index MB'] / 1024:.1f} GB on disk; searcher open: mmap ~{at['mmap open s']:.2f} s and "
          f"~{at['mmap open anon MB']:.0f} MB private vs whole ~{at['whole open anon MB'] / 1024:.1f} GB private.")
    if any("one-shot build s" in r for r in rows):
        r = max((r for r in rows if "one-shot build s" in r), key=lambda r: r["passages"])
        print(f"At {r['passages']:,} passages, chunked vs one-shot: build {r['build s'] / r['one-shot build s']:.2f}x "
              f"the time, {r['peak MB'] / r['one-shot peak MB']:.2f}x the peak memory, same bytes.")


if __name__ == "__main__":
    main()
