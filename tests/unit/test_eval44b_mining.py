"""44b Eval: the false-negative screen, negative mining, the metrics on hand-made rankings."""

import pytest

from irdata.eval44b.arms import PairScorer, fuse_ranks, ranks_from_scores, score_arm
from irdata.eval44b.metrics import chance_metrics, metrics_from_ranks
from irdata.eval44b.mining import choose_negatives, mine
from irdata.eval44b.screen import Screen, normalise_title, title_similarity

SETTINGS = {"negatives": 8, "mix": {"dense": 4, "lexical": 4}, "depth": 30, "pool": 6, "seed": 0}


def collection():
    words = ["graph", "kernel", "spectral", "bandit", "robust", "sparse", "neural", "causal", "quantum", "latent"]
    papers = {
        f"arxiv:{i}": {
            "title": f"{words[i % 10]} {words[(i * 3 + 1) % 10]} methods for {words[i // 10]} data {i}",
            "s2_id": f"s{i}",
        }
        for i in range(40)
    }
    papers["arxiv:0"] = {"title": "Attention Is All You Need", "s2_id": "S2-POS"}  # the positive
    papers["arxiv:1"] = {"title": "Attention is all you need!", "s2_id": "other"}  # near-identical title
    papers["openalex:W1"] = {"title": "Something else entirely", "s2_id": "S2-POS"}  # same S2 id
    papers["web:copy"] = {"title": "Sparse Neural Methods for Graph-Data (5)", "s2_id": None}  # copy of arxiv:5
    papers["arxiv:s2dup"] = {"title": "An unrelated title here", "s2_id": "s6"}  # same S2 id as arxiv:6
    return papers


def test_title_normalisation_and_similarity():
    assert normalise_title("  Attention Is All You Need! ") == "attention is all you need"
    assert normalise_title("Déjà-vu: Ünïcode\tTitles") == "deja vu unicode titles"
    assert normalise_title("BERT_large (v2)") == "bert large v2"
    assert title_similarity("abc", "abc") == 1.0
    assert title_similarity("attention is all you need", "attention is all you needed") > 0.9
    assert title_similarity("attention is all you need", "graph networks") < 0.5
    with pytest.raises(ValueError):
        normalise_title("x", "lowercase")


def test_screen_rejects_positive_s2_id_and_near_identical_title():
    screen = Screen(collection(), threshold=0.9)
    assert screen.reject("arxiv:0", "arxiv:0") == "is_positive"
    assert screen.reject("arxiv:1", "arxiv:0") == "near_identical_title"
    assert screen.reject("openalex:W1", "arxiv:0") == "same_s2_id"
    assert screen.reject("arxiv:2", "arxiv:0") is None
    assert screen.clash("web:copy", "arxiv:5") == "near_identical_title"


def planted_lists():
    dense = ["arxiv:0", "arxiv:1", "openalex:W1", "arxiv:5", "web:copy", "arxiv:6", "arxiv:s2dup"] + [
        f"arxiv:{i}" for i in range(7, 20)
    ]
    lexical = ["openalex:W1", "arxiv:1", "arxiv:5", "web:copy", "arxiv:s2dup", "arxiv:6"] + [
        f"arxiv:{i}" for i in range(20, 35)
    ]
    return {"dense": dense, "lexical": lexical}


def test_negatives_are_screened_unique_mixed_and_keep_miner_and_rank():
    screen = Screen(collection())
    negs, stats = choose_negatives("q1", "arxiv:0", planted_lists(), screen, SETTINGS)
    keys = [n["key"] for n in negs]
    assert len(negs) == 8 and len(set(keys)) == 8
    assert not {"arxiv:0", "arxiv:1", "openalex:W1"} & set(keys)
    assert not ({"arxiv:5", "web:copy"} <= set(keys)) and not ({"arxiv:6", "arxiv:s2dup"} <= set(keys))
    for a in keys:
        for b in keys:
            assert a == b or screen.clash(a, b) is None
    assert [n["miner"] for n in negs] == ["dense"] * 4 + ["lexical"] * 4
    lists = planted_lists()
    for n in negs:
        assert lists[n["miner"]][n["rank"] - 1] == n["key"]
    assert stats["rejected_near_identical_title"] == 2 and stats["rejected_same_s2_id"] == 2
    assert stats["rejected_is_positive"] == 1


def test_mining_is_seeded_and_deterministic():
    screen = Screen(collection())
    a = choose_negatives("q1", "arxiv:0", planted_lists(), screen, SETTINGS)[0]
    b = choose_negatives("q1", "arxiv:0", planted_lists(), screen, SETTINGS)[0]
    assert a == b
    draws = {
        tuple(n["key"] for n in choose_negatives("q1", "arxiv:0", planted_lists(), screen, {**SETTINGS, "seed": s})[0])
        for s in range(10)
    }
    assert len(draws) > 1  # the seed matters
    top = choose_negatives("q1", "arxiv:0", planted_lists(), screen, {**SETTINGS, "pool": 1})[0]
    assert [n["rank"] for n in top if n["miner"] == "dense"] == sorted(n["rank"] for n in top if n["miner"] == "dense")


def test_shortfall_is_filled_from_the_other_miner_then_reported_never_padded():
    screen = Screen(collection())
    lists = {"dense": ["arxiv:0", "arxiv:2", "arxiv:3"], "lexical": [f"arxiv:{i}" for i in range(10, 30)]}
    negs, stats = choose_negatives("q", "arxiv:0", lists, screen, SETTINGS)
    assert len(negs) == 8 and stats["short_dense"] == 2 and stats["filled_from_other_miner"] == 2
    few = {"dense": ["arxiv:2", "arxiv:3"], "lexical": ["arxiv:1", "arxiv:4"]}

    def searcher(name):
        return lambda texts, k, exclude: [few[name] for _ in texts]

    queries = [
        {"note_id": "q", "note_url": "u", "kind": "official_review", "split": "test", "paper": "arxiv:0", "text": "t"}
    ]
    rows, report = mine(queries, screen, {"dense": searcher("dense"), "lexical": searcher("lexical")}, SETTINGS)
    assert rows == [] and report["queries_lacking_negatives"] == 1
    assert report["lacking"] == [{"note_id": "q", "paper": "arxiv:0", "clean_negatives": 3}]
    with pytest.raises(ValueError, match="add up"):
        mine(queries, screen, {}, {**SETTINGS, "mix": {"dense": 2, "lexical": 2}})


def test_metrics_on_a_hand_made_ranking():
    got = metrics_from_ranks([1, 2, 3, 9])
    assert got == pytest.approx(
        {"P@1": 0.25, "P@2": 0.5, "P@3": 0.75, "MRR": (1 + 1 / 2 + 1 / 3 + 1 / 9) / 4, "mean_rank": 15 / 4}
    )
    assert metrics_from_ranks([]) == {"P@1": None, "P@2": None, "P@3": None, "MRR": None, "mean_rank": None}
    chance = chance_metrics(9)
    assert chance["P@1"] == pytest.approx(1 / 9) and chance["mean_rank"] == 5
    # positive at index 0; scores rank it third
    assert ranks_from_scores([0.5, 0.9, 0.1, 0.7], [0, 1, 2, 3])[0] == 3
    # ties: the order decides (earlier wins)
    assert ranks_from_scores([1.0, 1.0, 1.0], [1, 2, 0]) == [3, 1, 2]
    assert ranks_from_scores([1.0, 1.0, 1.0], [0, 2, 1]) == [1, 3, 2]
    assert ranks_from_scores([0.2, 0.9, 0.5], [0, 1, 2]) == [3, 1, 2]
    fused = fuse_ranks([[1, 2, 3], [3, 1, 2]], k=60)
    assert fused == pytest.approx([1 / 61 + 1 / 63, 1 / 62 + 1 / 61, 1 / 63 + 1 / 62])
    assert fuse_ranks([[1, 3, 2], [3, 1, 2]], k=60)[:2] == fuse_ranks([[3, 1, 2], [1, 3, 2]], k=60)[1::-1]


def test_random_arm_is_near_chance_and_model_arms_use_their_scores():
    rows = [
        {"note_id": f"q{i}", "positive": "p0", "negatives": [{"key": f"p{j}"} for j in range(1, 9)]}
        for i in range(3000)
    ]
    queries = {r["note_id"]: "query text" for r in rows}
    docs = {f"p{j}": f"doc {j}" for j in range(9)}
    settings = {"query_chars": 600, "document_chars": 900, "seed": 0, "negatives": 8, "kind": "random"}
    result = score_arm("random", rows, queries, docs, settings)
    assert abs(result["metrics"]["P@1"] - 1 / 9) < 0.02
    assert abs(result["metrics"]["mean_rank"] - 5) < 0.15
    assert score_arm("random", rows[:50], queries, docs, settings)["ranks"] == result["ranks"][:50]
    seen = []

    def oracle(query, cands):
        seen.append((query, cands))
        return [1.0 if c == "doc 0" else 0.0 for c in cands]

    perfect = score_arm(
        "model", rows[:5], {**queries, "q0": "x" * 700}, {**docs, "p3": "y" * 1000}, settings, scorer=PairScorer(oracle)
    )
    assert perfect["metrics"]["P@1"] == 1.0 and perfect["truncation"] == {"query_chars": 600, "document_chars": 900}
    assert len(seen[0][0]) == 600 and len(seen[0][1][3]) == 900
