"""The downstream comparison's plain functions on a small collection written here and the tiny BERT of the
44b tests: label sets and hard negatives, training both arms with the 44b loop, exact-search evaluation
with the release's evaluate code, and the paired randomisation test.

The two tests the issue asks for: official positives replaced by unrelated passages for half the queries
make the clean (release) arm win with a small p-value; identical label sets give a difference of exactly 0.
"""

import numpy as np
import pyarrow as pa
import pytest

from irdata.downstream.evaluation import encode_queries, retrieve, score_run
from irdata.downstream.labels import excluded_passages, hard_negatives, label_sets, training_rows
from irdata.downstream.significance import paired_difference
from irdata.downstream.training import train_arm
from irdata.retrieval.dense import model_fingerprint
from unit.eval44b_tiny import tiny_sentence_transformer

TOPICS = ["volcano eruptions in iceland", "baking sourdough bread", "training for a marathon", "the french revolution",
          "photosynthesis in plants", "how vaccines work", "the stock market crash of 1929", "black holes and gravity",
          "growing tomatoes at home", "the history of jazz music", "learning to play chess", "coral reef bleaching",
          "ancient egyptian pyramids", "electric car batteries", "the water cycle", "honey bee colonies",
          "the roman empire's fall", "machine translation", "mount everest expeditions", "the olympic games",
          "tea ceremonies in japan", "wind turbine design", "the human immune system", "arctic sea ice",
          "renaissance painting", "desert camels", "quantum computing basics", "penguin migration",
          "coffee roasting", "earthquake prediction", "the printing press", "deep sea fish",
          "solar eclipses", "wine fermentation", "the silk road", "hurricane formation", "bonsai trees",
          "the moon landing", "origami folding", "dinosaur extinction"]
N = len(TOPICS)
PASSAGES = {f"p{i}": f"This passage explains {t} in detail, with facts about {t}." for i, t in enumerate(TOPICS)}
TRAIN = {f"t{i}": f"tell me about {t}" for i, t in enumerate(TOPICS)}
DEV = {f"d{i}": f"what do we know about {t}?" for i, t in enumerate(TOPICS)}
DEV_QRELS = {f"d{i}": {f"p{i}": 1} for i in range(N)}
SETTINGS = {"seed": 0, "threads": 1, "steps": 40, "batch_queries": 8, "learning_rate": 1e-3, "warmup_share": 0.1,
            "scale": 20.0, "max_length": 32, "batch_size": 32, "query_chars": 0, "document_chars": 0}
# exact search at this size (irdata.retrieval.dense.index_kind)
DENSE = {"hnsw_threshold": 100_000, "compressed_threshold": 1_000_000, "compressed_index": "hnsw_sq8"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_sentence_transformer(tmp_path_factory.mktemp("tiny"))


def unrelated(i: int) -> str:
    return f"p{(i + N // 2) % N}"


def rows(corrupt: bool) -> list[dict]:
    """The clean positive of every query for the release; for the official arm the same, or, with
    `corrupt`, an unrelated passage for every other query; the hard negative is the next topic."""
    return [{"query_id": f"t{i}", "release": [f"p{i}"],
             "official": [unrelated(i) if corrupt and i % 2 == 0 else f"p{i}"], "negative": f"p{(i + 1) % N}"}
            for i in range(N)]


def evaluate_arm(model) -> dict:
    import torch

    pids = sorted(PASSAGES)
    model.eval()
    with torch.no_grad():
        vectors = model.encode_document([PASSAGES[p] for p in pids], convert_to_numpy=True, normalize_embeddings=True)
        queries = encode_queries(model, [DEV[q] for q in sorted(DEV)], 32, True)
    run, kind = retrieve([vectors.astype(np.float32)], pids, sorted(DEV), queries, DENSE)
    assert kind == "flat"
    return score_run(DEV_QRELS, run, min_rel=1)


def compare(tiny, corrupt: bool, tmp_path) -> dict:
    settings = {**SETTINGS, "base_model": tiny}
    scores, sums = {}, {}
    for arm in ("release", "official"):
        model, report = train_arm(arm, rows(corrupt), TRAIN, PASSAGES, settings)
        assert report["steps"] == SETTINGS["steps"] and report["examples"] == N
        model.save(str(tmp_path / arm), create_model_card=False)
        sums[arm] = model_fingerprint(str(tmp_path / arm))
        scores[arm] = evaluate_arm(model)["per_query"]
    out = {"same_model": sums["release"] == sums["official"]}
    for measure in ("MRR@10", "nDCG@10"):
        a, b = ([scores[arm][q][measure] for q in sorted(DEV_QRELS)] for arm in ("release", "official"))
        out[measure] = paired_difference(a, b, resamples=2000, seed=0)
    return out


def test_clean_labels_beat_half_corrupted_official_ones(tiny, tmp_path):
    result = compare(tiny, corrupt=True, tmp_path=tmp_path)
    assert not result["same_model"]
    for measure in ("MRR@10", "nDCG@10"):
        r = result[measure]
        assert r["difference"] > 0.03 and r["p_value"] < 0.05 and r["ci95"][0] > 0, (measure, r)


def test_identical_label_sets_give_a_difference_of_exactly_zero(tiny, tmp_path):
    result = compare(tiny, corrupt=False, tmp_path=tmp_path)
    assert result["same_model"]
    for measure in ("MRR@10", "nDCG@10"):
        assert result[measure]["difference"] == 0.0 and result[measure]["p_value"] == 1.0
        assert result[measure]["ci95"] == [0.0, 0.0]


def test_randomisation_test_is_seeded_and_two_sided():
    rng = np.random.default_rng(1)
    a = rng.random(50)
    b = a - 0.2
    r = paired_difference(a, b, resamples=999, seed=3)
    assert r == paired_difference(a, b, resamples=999, seed=3)
    assert r["difference"] == pytest.approx(0.2) and r["p_value"] == 1 / 1000 and r["ci95"][0] > 0.19
    mirrored = paired_difference(b, a, resamples=999, seed=3)
    assert mirrored["difference"] == pytest.approx(-0.2) and mirrored["p_value"] == r["p_value"]
    noise = paired_difference(a, rng.permutation(a), resamples=999, seed=3)
    assert noise["p_value"] > 0.05 and noise["ci95"][0] < 0 < noise["ci95"][1]
    with pytest.raises(ValueError, match="paired scores"):
        paired_difference([1.0, 2.0], [1.0])


def test_label_sets_take_selected_or_all_positives_and_only_queries_with_both():
    train_queries = pa.table({"query_id": ["a", "b", "c", "d"], "positive_id": ["p1", "p5", None, "p7"],
                              "positive_source": ["wood", "official_fallback", None, "wood"]})
    release_qrels = pa.table({"query_id": ["a", "a", "d"], "passage_id": ["p1", "p2", "p7"],
                              "grade": pa.array([3, 2, 2], pa.int8())})
    official = pa.table({"query_id": ["a", "b", "c", "e"], "passage_id": ["p9", "p5", "p3", "p4"],
                         "relevance": pa.array([1, 1, 1, 1], pa.int32())})
    selected = label_sets(train_queries, release_qrels, official, "selected")
    assert selected["queries"] == ["a", "b"]  # c: no release positive; d: no official one
    assert selected["release"] == {"a": ["p1"], "b": ["p5"]} and selected["official"] == {"a": ["p9"], "b": ["p5"]}
    assert selected["differ"] == 1
    every = label_sets(train_queries, release_qrels, official, "all")
    assert every["release"] == {"a": ["p1", "p2"], "b": ["p5"]}  # b keeps its official fallback
    with pytest.raises(ValueError, match="positives must be one of"):
        label_sets(train_queries, release_qrels, official, "best")


def test_hard_negatives_skip_graded_and_official_positives():
    judgments = pa.table({"query_id": ["a", "a", "a", "b"], "passage_id": ["p1", "p2", "p3", "p1"],
                          "grade": pa.array([3, 2, 1, 0], pa.int8())})
    official = pa.table({"query_id": ["a", "b"], "passage_id": ["p4", "p2"], "relevance": pa.array([1, 1], pa.int32())})
    excluded = excluded_passages(judgments, official)
    assert excluded == {"a": {"p1", "p2", "p4"}, "b": {"p2"}}
    ranked = {"a": ["p1", "p4", "p2", "p3", "p5"], "b": ["p2", "p1"], "c": ["p9"], "d": ["p1"]}
    chosen = hard_negatives(["a", "b", "c", "d", "e"], ranked, {**excluded, "d": {"p1"}})
    assert chosen == {"a": "p3", "b": "p1", "c": "p9"}  # p3 is graded 1: only 2-3 are excluded; d, e have none
    labels = {"queries": ["a", "b", "c"], "release": {"a": ["p1"], "b": ["p5"], "c": ["p6"]},
              "official": {"a": ["p4"], "b": ["p2"], "c": ["p6"]}}
    assert training_rows(labels, {"a": "p3", "c": "p9"}) == [
        {"query_id": "a", "release": ["p1"], "official": ["p4"], "negative": "p3"},
        {"query_id": "c", "release": ["p6"], "official": ["p6"], "negative": "p9"}]


def _evaluation(scores: dict, min_rel: int = 1) -> dict:
    """An evaluate_model result of one set from per-query MRR@10 scores (every measure the same score)."""
    per_query = {q: dict.fromkeys(("MRR@10", "nDCG@10", "Recall@100"), s) for q, s in scores.items()}
    mean = {m: float(np.mean(list(scores.values()))) for m in ("MRR@10", "nDCG@10", "Recall@100")}
    return {"index": "flat", "sets": {"official": {"mean": {**mean, "queries": len(scores)},
                                                           "per_query": per_query, "min_rel": min_rel}}}


def _result(release: dict, official: dict, differ: int):
    from irdata.downstream.compare import compare

    base = {q: 0.5 for q in release}
    evaluations = {"m": {"base": {"demo": _evaluation(base)}, "release": {"demo": _evaluation(release)},
                         "official": {"demo": _evaluation(official)}}}
    report = {"model_sha256": "ab" * 32, "steps": 4, "examples": 10, "train_queries": 10, "parameters": 1}
    settings = {"collection": "demo", "seed": 0, "resamples": 999, "positives": "selected", "eval_sets": [],
                "train": {"seed": 0, "steps": 4, "batch_queries": 8}}
    return compare(evaluations, {"m": {"release": report, "official": report}},
                   {"queries": 10, "differ": differ, "no_negative": 0}, settings)


def flat(text: str) -> str:
    """The card's text with its line breaks as spaces (its paragraphs are wrapped)."""
    return " ".join(text.split())


def test_the_card_says_what_the_numbers_show(tmp_path):
    from irdata.downstream.compare import card_section
    from irdata.report import downstream_report

    queries = [f"q{i}" for i in range(30)]
    same = _result(dict.fromkeys(queries, 0.4), dict.fromkeys(queries, 0.4), differ=0)
    assert same["results"]["m"]["official"]["difference"]["MRR@10"]["difference"] == 0.0
    assert "equal the official ones for all 10 training queries" in flat(card_section(same))
    better = _result(dict.fromkeys(queries, 0.9), {q: 0.2 + 0.01 * i for i, q in enumerate(queries)}, differ=5)
    text = flat(card_section(better))
    assert "The positives differ for 5 of the 10 training queries (50.0%)" in text
    assert "significantly better (p < 0.05) for nDCG@10 on official (m, +0.5550)" in text
    assert "| m | official | 30 | MRR@10 | 0.5000 | 0.3450 | 0.9000 | +0.5550 |" in card_section(better)
    assert max(len(line) for line in card_section(better).splitlines() if not line.startswith("|")) <= 115
    noise = _result({q: 0.5 + (0.01 if i % 2 else -0.01) for i, q in enumerate(queries)}, dict.fromkeys(queries, 0.5),
                    differ=5)
    assert "No difference between the two trained models is significant" in flat(card_section(noise))
    assert card_section(None).startswith("This build ran no downstream comparison")
    path = tmp_path / "downstream.json"
    from irdata.atomic import write_json_atomic

    write_json_atomic(path, better)
    out = {"table": tmp_path / "t.html", "figure": tmp_path / "f.png", "settings": {"title": "Doubting SciFact"}}
    assert downstream_report(result=path, **out) == 1
    first = out["figure"].read_bytes()
    downstream_report(result=path, **out)
    table = out["table"].read_text()
    assert out["figure"].read_bytes() == first and "+0.5550" in table
    assert "<h3>Doubting SciFact: downstream comparison</h3>" in table and "MS MARCO" not in table


def test_a_beir_set_is_read_and_a_bad_line_is_named(tmp_path):
    from irdata.downstream.beir import convert_beir
    from irdata.errors import InputError
    from irdata.passage_store import PassageStore
    from irdata.sources.beir import beir_paths

    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text('{"_id": "d1", "title": "Kyoto", "text": "has temples"}\n'
                                       '{"_id": "d2", "title": "", "text": "bread\\tbaking"}\n')
    (beir / "queries.jsonl").write_text('{"_id": "1", "text": "temples in kyoto"}\n{"_id": "2", "text": "unjudged"}\n')
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t0\n")
    out = tmp_path / "out"
    out.mkdir()
    files = {**beir_paths(beir, "test"), "store": out / "p.arrow", "judged_queries": out / "q.tsv",
             "judged_qrels": out / "qrels.trec", "report": out / "inputs.json", "settings": {}}
    counts = convert_beir(**files)
    assert counts == {"passages": 2, "queries": 1, "qrels": 2}
    store = PassageStore(out / "p.arrow")
    # the title kept beside the text; the encoder reads them joined, as BEIR's dense models do
    assert (store["d1"], store.title("d1"), store["d2"]) == ("has temples", "Kyoto", "bread\tbaking")
    assert store.index_texts(0, 2) == ["Kyoto has temples", "bread\tbaking"]
    assert (out / "q.tsv").read_text() == "1\ttemples in kyoto\n"
    assert (out / "qrels.trec").read_text() == "1\t0\td1\t1\n1\t0\td2\t0\n"
    (beir / "queries.jsonl").write_text('{"_id": "1", "text": "ok"}\n{"_id": 2, "text": "x"}\n')
    with pytest.raises(InputError, match=r"queries.jsonl, line 2, field '_id': _id is a JSON int"):
        convert_beir(**files)
    (beir / "queries.jsonl").write_text('{"_id": "1", "text": "ok"}\n')
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n1\td9\t1\n")
    with pytest.raises(InputError, match="test.tsv, line 2, field 'corpus-id': corpus-id 'd9'"):
        convert_beir(**files)
