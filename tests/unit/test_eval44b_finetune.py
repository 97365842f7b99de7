"""The fine-tuned arms on a tiny BERT (2 layers, width 32, MiniLM's tokenizer) built here: training is
seeded and byte-identical, early-stops on val, saves exactly the declared files, and the trained
cross-encoder scores like any cross-encoder a user brings (by local path)."""

import shutil

import pytest

from irdata.atomic import write_jsonl_atomic
from irdata.eval44b.arms import score_arm
from irdata.eval44b.finetune import fine_tune, run_fine_tune, training_examples
from irdata.retrieval.dense import model_fingerprint
from irdata.training.models import MODEL_FILES, save_model
from unit.eval44b_tiny import tiny_sentence_transformer

TOPICS = [
    "graph neural networks for molecules",
    "speech recognition with transformers",
    "reinforcement learning for robots",
    "diffusion models for images",
    "bayesian optimisation of kernels",
    "federated learning with privacy",
    "protein structure prediction",
    "language model pretraining",
    "causal inference from observations",
    "sparse attention for long documents",
]
COLLECTION = {f"p:{i}": f"A study of {t}. We present a method for {t} and evaluate it." for i, t in enumerate(TOPICS)}
QUERIES = {
    f"q{i}{j}": f"This paper is about {t}; the reviewer summarises its {t} method ({j})."
    for i, t in enumerate(TOPICS)
    for j in range(2)
}
ROWS = [
    {"note_id": q, "positive": f"p:{q[1]}", "negatives": [{"key": f"p:{k}"} for k in range(10) if k != int(q[1])][:4]}
    for q in QUERIES
]
SCORE = {"query_chars": 600, "document_chars": 900, "seed": 0, "negatives": 4, "record_timing": False}
SETTINGS = {
    "seed": 0,
    "threads": 1,
    "batch_size": 8,
    "val_queries": None,
    "max_length": 48,
    "epochs": 2,
    "max_steps": None,
    "batch_queries": 4,
    "negatives_per_step": 2,
    "learning_rate": 1e-3,
    "warmup_share": 0.1,
    "eval_every": 3,
    "patience": 2,
    "scale": 20.0,
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return tiny_sentence_transformer(tmp_path_factory.mktemp("tiny"))


def run(kind, tiny, out_dir, **overrides):
    settings = {**SETTINGS, "base_model": tiny, **overrides}
    train = training_examples(ROWS, QUERIES, COLLECTION, 600, 900)
    val = {"rows": ROWS[:6], "queries": QUERIES, "collection": COLLECTION, "settings": SCORE}
    model, report = fine_tune(kind, train, val, settings)
    save_model(model, kind, out_dir)
    return report


@pytest.mark.parametrize("kind", ["cross_encoder", "bi_encoder"])
def test_fine_tune_is_deterministic_and_saves_the_declared_files(kind, tiny, tmp_path):
    import torch

    threads = torch.get_num_threads()
    a = run(kind, tiny, tmp_path / "a")
    b = run(kind, tiny, tmp_path / "b")
    assert torch.get_num_threads() == threads and not torch.are_deterministic_algorithms_enabled()
    assert sorted(
        p.relative_to(tmp_path / "a").as_posix() for p in (tmp_path / "a").rglob("*") if p.is_file()
    ) == sorted(MODEL_FILES[kind])
    assert model_fingerprint(str(tmp_path / "a")) == model_fingerprint(str(tmp_path / "b"))
    assert a["evaluations"] == b["evaluations"] and a["best"] == b["best"]
    # 20 queries, 4 a step: 5 steps an epoch, evaluated at steps 3, 5 (epoch end), 6, 9, 10 unless stopped early
    assert [e["step"] for e in a["evaluations"]][:2] == [3, 5] and a["steps"] <= 10
    assert a["best"]["val"]["MRR"] == max(e["MRR"] for e in a["evaluations"])
    assert a["parameters"] > 1_000_000  # the embedding matrix of MiniLM's 30,522-token vocabulary
    c = run(kind, tiny, tmp_path / "c", seed=1, max_steps=2, eval_every=0)
    assert c["steps"] == 2 and [e["step"] for e in c["evaluations"]] == [2]
    assert model_fingerprint(str(tmp_path / "c")) != model_fingerprint(str(tmp_path / "a"))


def test_the_training_report_is_byte_identical_without_timing(tiny, tmp_path):
    """record_timing false leaves the wall time out of the job's report, as out of every other output."""
    queries = [{"note_id": q, "text": t} for q, t in QUERIES.items()]
    paths = {"train_mined": tmp_path / "mined.jsonl", "train_queries": tmp_path / "queries.jsonl",
             "val_mined": tmp_path / "mined.jsonl", "val_queries": tmp_path / "queries.jsonl",
             "collection": tmp_path / "papers.tsv"}
    write_jsonl_atomic(paths["train_mined"], ROWS)
    write_jsonl_atomic(paths["train_queries"], queries)
    paths["collection"].write_text("".join(f"{k}\t{v}\n" for k, v in COLLECTION.items()))
    settings = {**SETTINGS, "base_model": tiny, "max_steps": 2, "eval_every": 0, "val_queries": 4}
    reports = []
    for run_dir in ("a", "b"):
        out = tmp_path / f"{run_dir}.json"
        report = run_fine_tune(kind="cross_encoder", **paths, model=[], report=out, model_dir=tmp_path / run_dir,
                               settings={"finetune": settings, "scoring": SCORE})
        assert report["train_seconds"] is None
        reports.append(out.read_bytes())
    assert reports[0] == reports[1]


def test_a_trained_cross_encoder_scores_as_a_brought_one(tiny, tmp_path):
    """The fine-tuned arm and a user's cross_encoder arm pointing at a copy of its folder agree."""
    run("cross_encoder", tiny, tmp_path / "model")
    shutil.copytree(tmp_path / "model", tmp_path / "mine")
    results = {}
    for arm, folder in (("finetuned_cross_encoder", "model"), ("cross_encoder-mine", "mine")):
        spec = {"name": "mine", "model": str(tmp_path / folder), "batch_size": 8, "max_length": 48}
        results[arm] = score_arm(
            arm, ROWS, QUERIES, COLLECTION, {**SCORE, "kind": "cross_encoder", "cross_encoder": spec}
        )
    assert results["finetuned_cross_encoder"]["ranks"] == results["cross_encoder-mine"]["ranks"]
    assert results["finetuned_cross_encoder"]["model_sha256"] == results["cross_encoder-mine"]["model_sha256"]


def test_a_kind_or_split_without_examples_is_refused(tiny):
    with pytest.raises(ValueError, match="unknown fine-tune kind"):
        fine_tune("colbert", [], {}, SETTINGS)
    with pytest.raises(ValueError, match="no train examples"):
        fine_tune("cross_encoder", [], {}, SETTINGS)
