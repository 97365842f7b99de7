"""44b Eval: the split (recomputed independently from the salt), queries, the ICLR converter."""

import hashlib
import json

import pytest

from irdata.errors import InputError
from irdata.eval44b.inputs import load_papers, load_reviews, paper_text
from irdata.eval44b.queries import select_queries, write_queries
from irdata.eval44b.split import split_of, split_papers, split_value

SALT = "44b-training-pairs-2026-07-31:"
SETTINGS = {
    "format": "44b",
    "salt": SALT,
    "key_format": "{scheme}:{id}",
    "split": {"train_below": 0.8, "val_below": 0.9},
}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def papers(n=60):
    rows = [
        {
            "scheme": "arxiv",
            "id": f"2401.{i:05d}",
            "url": f"https://arxiv.org/abs/2401.{i:05d}",
            "title": f"Paper {i} on topic {i % 7}",
            "abstract": f"We study\tthing {i}.\nIt works.",
            "s2_id": f"s2-{i}",
        }
        for i in range(n)
    ]
    rows.append(
        {
            "scheme": "web",
            "id": "blog-1",
            "url": "https://example.org/post",
            "title": "A web post",
            "abstract": "",
            "s2_id": None,
        }
    )
    return rows


def reviews(ps):
    out = []
    for i, p in enumerate(ps):
        key = f"{p['scheme']}:{p['id']}"
        out.append(
            {
                "note_id": f"n{i}a",
                "note_url": f"https://openreview.net/forum?id=x&noteId=n{i}a",
                "kind": "official_review",
                "paper": key,
                "summary": "long " * 60,
            }
        )
        out.append(
            {
                "note_id": f"n{i}b",
                "note_url": f"https://openreview.net/forum?id=x&noteId=n{i}b",
                "kind": "meta_review",
                "paper": key,
                "summary": "too short",
            }
        )
    out.append(
        {"note_id": "orphan", "note_url": "u", "kind": "official_review", "paper": "arxiv:nope", "summary": "x" * 300}
    )
    return out


def independent_value(key):
    h = hashlib.sha256(("44b-training-pairs-2026-07-31:" + key).encode()).hexdigest()
    return int(h[:16], 16) / 16**16


def test_split_values_recomputed_from_the_salt(tmp_path):
    ps = papers()
    p_in, r_in = write_jsonl(tmp_path / "p.jsonl", ps), write_jsonl(tmp_path / "r.jsonl", reviews(ps))
    out = {name: tmp_path / "work" / name for name in ("papers.tsv", "papers.jsonl", "reviews.jsonl", "split.json")}
    report = split_papers(
        raw_papers=p_in, raw_reviews=r_in, collection=out["papers.tsv"], papers=out["papers.jsonl"],
        reviews=out["reviews.jsonl"], report=out["split.json"], settings=SETTINGS,
    )
    rows = [json.loads(line) for line in out["papers.jsonl"].read_text().splitlines()]
    assert len(rows) == 61
    for row in rows:
        value = independent_value(row["key"])
        expected = "train" if value < 0.8 else "val" if value < 0.9 else "test"
        assert row["split_value"] == value and row["split"] == expected
    assert sum(report["papers"].values()) == 61 and set(report["papers"]) == {"train", "val", "test"}
    # reviews follow their paper; one without a paper is counted, not kept
    split_of_key = {r["key"]: r["split"] for r in rows}
    kept = [json.loads(line) for line in out["reviews.jsonl"].read_text().splitlines()]
    assert len(kept) == 122 and all(r["split"] == split_of_key[r["paper"]] for r in kept)
    assert report["reviews_without_paper"] == 1
    # the collection: key TAB title. abstract, one line each
    lines = out["papers.tsv"].read_text().splitlines()
    assert lines[0] == "arxiv:2401.00000\tPaper 0 on topic 0. We study thing 0. It works."
    assert lines[-1] == "web:blog-1\tA web post."


def test_thresholds_and_salt():
    assert split_of(0.0) == "train" and split_of(0.7999) == "train"
    assert split_of(0.8) == "val" and split_of(0.8999) == "val"
    assert split_of(0.9) == "test" and split_of(0.99999) == "test"
    assert split_value(SALT, "arxiv:1") == independent_value("arxiv:1")
    assert split_value("other:", "arxiv:1") != split_value(SALT, "arxiv:1")
    assert split_of(0.5, 0.4, 0.6) == "val"


def test_key_format_is_configurable(tmp_path):
    ps = papers(5)
    p_in, r_in = write_jsonl(tmp_path / "p.jsonl", ps), write_jsonl(tmp_path / "r.jsonl", [])
    settings = {**SETTINGS, "key_format": "{id}"}
    split_papers(
        raw_papers=p_in, raw_reviews=r_in, collection=tmp_path / "a.tsv", papers=tmp_path / "a.jsonl",
        reviews=tmp_path / "r.out", report=tmp_path / "s.json", settings=settings,
    )
    rows = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    assert all(r["split_value"] == split_value(SALT, r["id"]) for r in rows)


def test_queries_at_least_min_chars_keep_their_fields(tmp_path):
    revs = [
        {
            "note_id": "a",
            "note_url": "ua",
            "kind": "official_review",
            "paper": "p:1",
            "split": "test",
            "summary": "x" * 199 + "  ",
        },
        {
            "note_id": "b",
            "note_url": "ub",
            "kind": "meta_review",
            "paper": "p:1",
            "split": "test",
            "summary": "yy\n" * 100,
        },
        {
            "note_id": "c",
            "note_url": "uc",
            "kind": "official_review",
            "paper": "p:2",
            "split": "train",
            "summary": "z" * 200,
        },
    ]
    queries, dropped = select_queries(revs, 200)
    assert [q["note_id"] for q in queries] == ["b", "c"]
    assert queries[0] == {
        "note_id": "b",
        "note_url": "ub",
        "kind": "meta_review",
        "paper": "p:1",
        "split": "test",
        "text": " ".join(["yy"] * 100),
    }
    assert dropped == {"test": 1}
    r_in = write_jsonl(tmp_path / "r.jsonl", revs)
    outs = {s: tmp_path / f"{s}.jsonl" for s in ("train", "val", "test")}
    report = write_queries(reviews=r_in, **outs, report=tmp_path / "rep.json", settings={"min_chars": 200})
    assert report["queries"] == {"train": 1, "val": 0, "test": 1} and outs["val"].read_text() == ""


def test_openreview_iclr_converter(tmp_path):
    p_in = write_jsonl(
        tmp_path / "papers.jsonl",
        [
            {
                "paper_id": "HJWHIKqgl",
                "title": "Optimized MMD",
                "abstract": "We propose.",
                "arxiv_id": None,
                "venue": "ICLR 2017",
                "url": "https://openreview.net/forum?id=HJWHIKqgl",
            },
            {"paper_id": "B1x", "title": "No abstract", "abstract": None, "url": None},
        ],
    )
    r_in = write_jsonl(
        tmp_path / "reviews.jsonl",
        [
            {
                "note_id": "HJWHIKqgl_review1",
                "note_id_is_synthetic": True,
                "paper_id": "HJWHIKqgl",
                "kind": "official_review",
                "text": "full",
                "summary_first_paragraph": "First paragraph.",
            },
            {
                "note_id": "rkReal",
                "note_id_is_synthetic": False,
                "paper_id": "B1x",
                "kind": "official_review",
                "summary_first_paragraph": None,
            },
        ],
    )
    got = load_papers(p_in, "openreview-iclr")
    assert got[0] == {
        "scheme": "openreview",
        "id": "HJWHIKqgl",
        "url": "https://openreview.net/forum?id=HJWHIKqgl",
        "title": "Optimized MMD",
        "abstract": "We propose.",
        "s2_id": None,
    }
    assert got[1]["url"] == "https://openreview.net/forum?id=B1x" and got[1]["abstract"] == ""
    assert paper_text(got[1]) == "No abstract."
    revs = load_reviews(r_in, "openreview-iclr")
    assert revs[0] == {
        "note_id": "HJWHIKqgl_review1",
        "note_url": "https://openreview.net/forum?id=HJWHIKqgl",
        "kind": "official_review",
        "paper": "openreview:HJWHIKqgl",
        "summary": "First paragraph.",
    }
    assert revs[1]["note_url"] == "https://openreview.net/forum?id=B1x&noteId=rkReal" and revs[1]["summary"] == ""


def test_bad_inputs_name_line_and_field(tmp_path):
    ps = papers(3)
    ps[2]["id"] = ps[0]["id"]
    with pytest.raises(InputError, match=r"line 3, field 'id'.*repeats"):
        load_papers(write_jsonl(tmp_path / "p.jsonl", ps))
    with pytest.raises(InputError, match=r"line 1, field 'kind'"):
        load_reviews(
            write_jsonl(
                tmp_path / "r.jsonl",
                [{"note_id": "a", "note_url": "u", "kind": "comment", "paper": "a:b", "summary": ""}],
            )
        )
    with pytest.raises(InputError, match=r"line 1, field 'title'"):
        load_papers(write_jsonl(tmp_path / "q.jsonl", [{"scheme": "a", "id": "b", "url": "u", "title": None}]))
