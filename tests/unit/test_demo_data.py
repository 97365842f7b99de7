"""The embedded demo data set in resources/demo/: counts, formats, planted duplicates, regeneration."""

import collections
import importlib.util
import json
import re
import unicodedata
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[2] / "resources" / "demo"
GENERATED = ["collection.tsv", "audit.qrels.tsv", "queries.train.tsv", "queries.dev.small.tsv", "queries.test.tsv",
             "qrels.train.tsv", "qrels.dev.small.tsv", "answers.dev.small.jsonl", "planted_duplicates.tsv",
             "papers44b.jsonl", "reviews44b.jsonl"]


def norm(text):
    """The card's rule for the demo's texts, which are in NFKC and hold no format character: case folded, Unicode
    punctuation (category P) removed, whitespace collapsed."""
    assert unicodedata.normalize("NFKC", text) == text and not any(unicodedata.category(c) == "Cf" for c in text)
    text = "".join(c for c in text.casefold() if not unicodedata.category(c).startswith("P"))
    return re.sub(r"\s+", " ", text).strip()


def lines(name):
    data = (DEMO / name).read_bytes()
    assert b"\r" not in data and data.endswith(b"\n"), name
    return data.decode("utf-8").split("\n")[:-1]


def tsv(name, columns):
    rows = [line.split("\t") for line in lines(name)]
    assert all(len(r) == columns for r in rows), name
    return rows


def jsonl(name):
    return [json.loads(line) for line in lines(name)]


@pytest.fixture(scope="module")
def generator():
    spec = importlib.util.spec_from_file_location("make_demo", DEMO / "make_demo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def collection():
    return dict(tsv("collection.tsv", 2))


@pytest.fixture(scope="module")
def queries():
    return {split: tsv(f"queries.{split}.tsv", 2) for split in ("train", "dev.small", "test")}


def qrels(name):
    rows = tsv(name, 4)
    assert all(r[1] == "0" and r[3] == "1" for r in rows)
    positives = collections.defaultdict(list)
    for qid, _, pid, _ in rows:
        positives[qid].append(pid)
    return positives


def test_regenerates_byte_identical(generator, tmp_path):
    generator.main(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(GENERATED)
    for name in GENERATED:
        assert (tmp_path / name).read_bytes() == (DEMO / name).read_bytes(), name


def test_collection(collection, generator):
    assert (DEMO / "collection.tsv").stat().st_size < 1_500_000
    assert len(collection) >= 1500 and len(collection) == len(lines("collection.tsv"))
    pids = [int(p) for p in collection]
    assert all(str(p) == s for p, s in zip(pids, collection))
    assert max(pids) - min(pids) + 1 > len(pids)  # not contiguous
    for text in collection.values():
        assert 30 <= len(text.split()) <= 90, text
        assert "\t" not in text and text == text.strip()
    assert len(generator.TOPICS) >= 40
    assert all(len(t[2]) + len(t[3]) >= 8 for t in generator.TOPICS)


def test_queries_and_ids(queries):
    train, dev, test = queries["train"], queries["dev.small"], queries["test"]
    assert len(train) >= 150 and len(dev) >= 40 and len(test) >= 20
    ids = [q for split in queries.values() for q, _ in split]
    assert len(ids) == len(set(ids))
    assert all(q.isdigit() for q in ids)
    assert all(t.strip() and "\t" not in t for split in queries.values() for _, t in split)


def test_qrels_and_answers(queries, collection):
    for split, name in (("train", "qrels.train.tsv"), ("dev.small", "qrels.dev.small.tsv")):
        positives = qrels(name)
        qids = {q for q, _ in queries[split]}
        assert set(positives) == qids, name
        assert all(1 <= len(p) <= 2 and len(set(p)) == len(p) for p in positives.values())
        assert sum(len(p) == 2 for p in positives.values()) >= 1
        assert all(pid in collection for p in positives.values() for pid in p)
    answers = jsonl("answers.dev.small.jsonl")
    assert [a["query_id"] for a in answers] == [q for q, _ in queries["dev.small"]]
    assert all(set(a) == {"query_id", "answers"} and len(a["answers"]) == 1 and a["answers"][0].strip()
               for a in answers)


def test_unlabelled_answering_passages(generator, queries, collection):
    """Many queries have 2-6 further passages stating the same fact outside the qrels; some official
    positives are weak (a passage on the topic that does not state the answer)."""
    fact_of = {norm(f[0]): f[1:] for t in generator.TOPICS for f in t[3]}
    answering = {key: {pid for pid, text in collection.items() if any(s in text for s in sentences)}
                 for key, sentences in fact_of.items()}
    extras, weak = [], 0
    for split, name in (("train", "qrels.train.tsv"), ("dev.small", "qrels.dev.small.tsv")):
        positives = qrels(name)
        for qid, text in queries[split]:
            ans = answering[norm(text)]
            extras.append(len(ans - set(positives[qid])))
            weak += not (set(positives[qid]) & ans)
    assert sum(2 <= e <= 6 for e in extras) * 2 >= len(extras)
    assert 5 <= weak <= len(extras) // 5


def test_planted_duplicates(queries):
    train, dev, test = queries["train"], queries["dev.small"], queries["test"]
    heldout = {}
    for qid, text in dev + test:
        heldout.setdefault(norm(text), qid)
    first, expected = {}, []
    for qid, text in train:
        key = norm(text)
        if key in heldout:
            expected.append([qid, "heldout", heldout[key]])
        elif key in first:
            expected.append([qid, "repeat", first[key]])
        first.setdefault(key, qid)
    rows = tsv("planted_duplicates.tsv", 3)
    assert rows[0] == ["query_id", "reason", "duplicate_of"]
    assert rows[1:] == expected
    planted = {r[0]: r for r in expected}
    dev_ids, test_ids = {q for q, _ in dev}, {q for q, _ in test}
    train_text = dict(train)
    order = [q for q, _ in train]
    # (a) equals a dev query, (b) equals a test query, differing from it in case or punctuation
    assert any(r[1] == "heldout" and r[2] in dev_ids and train_text[q] != dict(dev)[r[2]] for q, r in planted.items())
    assert any(r[1] == "heldout" and r[2] in test_ids and train_text[q] != dict(test)[r[2]] for q, r in planted.items())
    # (c)/(d) repeats; one text three times in train: the first stays, two excluded
    counts = collections.Counter(norm(t) for _, t in train)
    repeats = collections.Counter(norm(train_text[q]) for q, r in planted.items() if r[1] == "repeat")
    assert any(n == 2 and counts[k] == 3 for k, n in repeats.items())
    assert any(n == 1 and counts[k] == 2 for k, n in repeats.items())
    # (e) repeats an earlier train query and equals a dev query: heldout wins
    assert any(r[1] == "heldout" and r[2] in dev_ids
               and any(norm(train_text[p]) == norm(train_text[q]) for p in order[:order.index(q)])
               for q, r in planted.items())
    # duplicated train queries keep their qrels, as in MS MARCO
    assert set(planted) <= set(qrels("qrels.train.tsv"))


def test_planted_duplicates_match_project_dedup(queries):
    dedup = pytest.importorskip("irdata.dedup")
    pa = pytest.importorskip("pyarrow")

    def table(rows):
        return pa.table({"query_id": [r[0] for r in rows], "text": [r[1] for r in rows]})

    heldout = pytest.importorskip("irdata.heldout")
    sources = [heldout.Source(key, f"queries.{split}.tsv") for key, split in (
        ("train_queries", "train"), ("dev_queries", "dev.small"), ("heldout_queries[0]", "test"))]
    result = dedup.dedup_train_queries(
        (sources[0], table(queries["train"])),
        [(sources[1], table(queries["dev.small"])), (sources[2], table(queries["test"]))])
    planted = tsv("planted_duplicates.tsv", 3)[1:]
    assert result.excluded[["query_id", "reason", "duplicate_of"]].values.tolist() == planted


ID_PATTERNS = {"arxiv": r"\d{4}\.\d{5}", "openalex": r"W\d{10}", "s2": r"[0-9a-f]{40}", "web": r"[a-z0-9-]+"}
URL_PREFIX = {"arxiv": "https://arxiv.org/abs/", "openalex": "https://openalex.org/",
              "s2": "https://www.semanticscholar.org/paper/", "web": "https://example.org/"}


def test_papers44b():
    papers = jsonl("papers44b.jsonl")
    assert len(papers) >= 60
    keys = [f"{p['scheme']}:{p['id']}" for p in papers]
    assert len(keys) == len(set(keys))
    for p in papers:
        assert set(p) == {"scheme", "id", "url", "title", "abstract", "s2_id"}
        assert re.fullmatch(ID_PATTERNS[p["scheme"]], p["id"]), p["id"]
        assert p["url"].startswith(URL_PREFIX[p["scheme"]])
        if p["scheme"] != "web":
            assert p["url"] == URL_PREFIX[p["scheme"]] + p["id"]
        assert p["s2_id"] is None or re.fullmatch(r"[0-9a-f]{40}", p["s2_id"])
        assert 80 <= len(p["abstract"].split()) <= 150, p["title"]
    schemes = collections.Counter(p["scheme"] for p in papers)
    assert schemes["web"] == 2 and all(schemes[s] > 0 for s in ("arxiv", "openalex", "s2"))
    assert sum(p["s2_id"] is not None for p in papers) >= 5
    shared = [s for s, n in collections.Counter(p["s2_id"] for p in papers if p["s2_id"]).items() if n > 1]
    assert len(shared) == 1
    assert len({p["scheme"] for p in papers if p["s2_id"] == shared[0]}) == 2

    def loose(title):
        return re.sub(r"\s+v\d+$", "", norm(title.replace("-", " ")))

    titles = collections.Counter(loose(p["title"]) for p in papers)
    near = [t for t, n in titles.items() if n > 1]
    differing = [t for t in near if len({p["abstract"] for p in papers if loose(p["title"]) == t}) > 1]
    assert differing, "two different records with near-identical titles"


def test_reviews44b():
    papers = {f"{p['scheme']}:{p['id']}": p for p in jsonl("papers44b.jsonl")}
    reviews = jsonl("reviews44b.jsonl")
    assert len(reviews) >= 80
    assert len({r["note_id"] for r in reviews}) == len(reviews)
    for r in reviews:
        assert set(r) == {"note_id", "note_url", "kind", "paper", "summary"}
        assert re.fullmatch(r"https://openreview\.net/forum\?id=[A-Za-z0-9]{10}&noteId=" + r["note_id"], r["note_url"])
        assert r["kind"] in ("official_review", "meta_review")
        assert r["paper"] in papers and not r["paper"].startswith("web:")
        assert len(r["summary"]) <= 700
    assert sum(len(r["summary"]) < 200 for r in reviews) >= 10
    assert sum(len(r["summary"]) >= 200 for r in reviews) >= 60
    assert {r["kind"] for r in reviews} == {"official_review", "meta_review"}
    per_paper = collections.Counter(r["paper"] for r in reviews)
    assert max(per_paper.values()) <= 2 and len(per_paper) >= 55
