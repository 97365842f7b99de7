"""ir_datasets datasets the tests make, never download: ids registered in-process from local files with ir_datasets'
own classes, and an ir_datasets cache folder holding beir/scifact's source.zip where ir_datasets looks for it (a
process whose IR_DATASETS_HOME names the folder reads beir/scifact/* from it, offline)."""

from __future__ import annotations

import itertools
import json
import zipfile
from pathlib import Path

from printed_commands import code_blocks
from repo_copy import REPO

_names = itertools.count()

# beir/scifact as the tests' cache holds it: docs (id, title, text), queries, and the qrels of train and test
SCIFACT_DOCS = [("d1", "Alpha", "alpha beta gamma"), ("d2", "", "delta epsilon"), ("d3", "Zeta", "zeta eta theta"),
                ("d4", "Iota", "iota kappa")]
SCIFACT_QUERIES = [("q1", "what is alpha"), ("q2", "where is delta"), ("q3", "What is zeta?"), ("q4", "iota kappa"),
                   ("q5", "WHERE is delta")]
SCIFACT_QRELS = {"train": [("q1", "d1", 1), ("q4", "d4", 1), ("q5", "d2", 1)],
                 "test": [("q2", "d2", 1), ("q3", "d3", 1)]}


def scifact_cache(home: Path) -> Path:
    """An ir_datasets cache folder (IR_DATASETS_HOME) whose beir/scifact/source.zip is a tiny SciFact laid out as
    BEIR's zip is: scifact/corpus.jsonl, scifact/queries.jsonl, scifact/qrels/<split>.tsv. Train query q5 repeats
    test query q2's text under the text rule (case), so the dedup excludes it."""
    folder = home / "beir/scifact"
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / "source.zip", "w") as zf:
        zf.writestr("scifact/corpus.jsonl", "".join(
            json.dumps({"_id": i, "title": title, "text": text}) + "\n" for i, title, text in SCIFACT_DOCS))
        zf.writestr("scifact/queries.jsonl", "".join(
            json.dumps({"_id": i, "text": text, "metadata": {}}) + "\n" for i, text in SCIFACT_QUERIES))
        for split, rows in SCIFACT_QRELS.items():
            zf.writestr(f"scifact/qrels/{split}.tsv", "query-id\tcorpus-id\tscore\n" + "".join(
                f"{q}\t{d}\t{r}\n" for q, d, r in rows))
    return home


def register_local(folder: Path, docs: list[tuple[str, str]], splits: dict[str, tuple[list, list]]) -> dict[str, str]:
    """Register, in this process, ir_datasets ids of TSV files written under `folder`: one for the docs and one per
    split (its queries and TREC qrels over the same docs); returns {"docs" | split: id}. Each call's ids are new."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import LocalDownload

    prefix = f"irdata-test-{next(_names)}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "docs.tsv").write_text("".join(f"{i}\t{text}\n" for i, text in docs))
    docs_handler = TsvDocs(LocalDownload(folder / "docs.tsv"), namespace=prefix)
    ids = {"docs": prefix}
    ir_datasets.registry.register(prefix, Dataset(docs_handler))
    for split, (queries, qrels) in splits.items():
        (folder / f"{split}.queries.tsv").write_text("".join(f"{i}\t{text}\n" for i, text in queries))
        (folder / f"{split}.qrels").write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in qrels))
        ids[split] = f"{prefix}/{split}"
        ir_datasets.registry.register(ids[split], Dataset(
            docs_handler, TsvQueries(LocalDownload(folder / f"{split}.queries.tsv"), namespace=prefix),
            TrecQrels(LocalDownload(folder / f"{split}.qrels"), {})))
    return ids


def readme_overlay() -> str:
    """README's my-irds.yaml (section "ir_datasets ids as the input"), as printed."""
    [block] = [b for b in code_blocks("README.md", (REPO / "README.md").read_text()) if b.first == "# my-irds.yaml"]
    return "\n".join(block.lines) + "\n"
