"""Paper-disjoint split by a salted sha256, and the files it writes.

value(key) = first 8 bytes of sha256(salt + key), big-endian, divided by 2**64 -> [0, 1);
train if value < train_below, val if value < val_below, else test. A review follows its paper.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from ..atomic import atomic_open, write_json_atomic, write_jsonl_atomic
from .inputs import load_papers, load_reviews, paper_key, paper_text

SPLITS = ("train", "val", "test")
RULE = "sha256(salt + key)[:8 bytes, big-endian] / 2**64 -> [0,1); train < {train_below} <= val < {val_below} <= test"


def split_value(salt: str, key: str) -> float:
    digest = hashlib.sha256((salt + key).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_of(value: float, train_below: float = 0.8, val_below: float = 0.9) -> str:
    if value < train_below:
        return "train"
    if value < val_below:
        return "val"
    return "test"


def split_key(paper, key_format: str) -> str:
    """The string hashed for a paper: key_format with {scheme} and {id} filled in."""
    return key_format.format(scheme=paper["scheme"], id=paper["id"])


def split_papers(*, raw_papers, raw_reviews, collection, papers, reviews, report, settings) -> dict:
    """Assign every paper of `raw_papers` a split; write the `collection` TSV, the `papers` and `reviews` with
    their split, a `report`."""
    fmt = settings["format"]
    salt, key_format = settings["salt"], settings["key_format"]
    train_below, val_below = settings["split"]["train_below"], settings["split"]["val_below"]
    if not 0 < train_below <= val_below <= 1:
        raise ValueError(
            f"split thresholds must satisfy 0 < train_below <= val_below <= 1, got {train_below}, {val_below}"
        )
    paper_rows = load_papers(raw_papers, fmt)
    review_rows = load_reviews(raw_reviews, fmt)

    rows, split_by_key = [], {}
    with atomic_open(collection) as fh:
        for paper in paper_rows:
            key = paper_key(paper)
            value = split_value(salt, split_key(paper, key_format))
            split = split_of(value, train_below, val_below)
            split_by_key[key] = split
            fh.write(f"{key}\t{paper_text(paper)}\n")
            rows.append(
                {
                    "key": key,
                    "scheme": paper["scheme"],
                    "id": paper["id"],
                    "url": paper["url"],
                    "title": paper["title"],
                    "s2_id": paper["s2_id"],
                    "split": split,
                    "split_value": value,
                }
            )
    write_jsonl_atomic(papers, rows)

    kept, orphans = [], []
    for review in review_rows:
        split = split_by_key.get(review["paper"])
        if split is None:
            orphans.append(review["note_id"])
            continue
        kept.append({**review, "split": split})
    write_jsonl_atomic(reviews, kept)

    counts = {
        "rule": RULE.format(train_below=train_below, val_below=val_below),
        "salt": salt,
        "key_format": key_format,
        "format": fmt,
        "papers": dict(sorted(Counter(r["split"] for r in rows).items())),
        "reviews": dict(sorted(Counter(r["split"] for r in kept).items())),
        "reviews_without_paper": len(orphans),
        "reviews_without_paper_ids": sorted(orphans)[:50],
        "schemes": dict(sorted(Counter(r["scheme"] for r in rows).items())),
    }
    for split in SPLITS:
        counts["papers"].setdefault(split, 0)
        counts["reviews"].setdefault(split, 0)
    write_json_atomic(report, counts)
    return counts
