"""Where an index lies: a folder per collection and kind under work/index/, declared by its files rather than as
a directory() output (Snakemake keeps checksums of files, so a touched index reruns nothing downstream). Light:
planning imports it."""

from __future__ import annotations

from ..workdir import WORK

INDEX_FILES = {
    "bm25": ("settings.json", "ids.arrow", "vocab.arrow", "params.index.json", "vocab.index.json",
             "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"),
    "dense": ("settings.json", "ids.arrow", "index.faiss"),
}


def index_dir(collection: str, kind: str) -> str:
    """The folder of a collection's index of one kind (bm25 or dense)."""
    return f"{WORK}/index/{collection}/{kind}"


def index_files(folder: str, kind: str) -> list[str]:
    """The files an index of `kind` in `folder` is made of."""
    return [f"{folder}/{name}" for name in INDEX_FILES[kind]]
