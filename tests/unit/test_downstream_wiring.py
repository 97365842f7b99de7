"""irdata.downstream.wiring: the files and jobs rules/downstream.smk names."""

from irdata.doubting.release_files import TREC_STRICT
from irdata.downstream import wiring

DS = "work/doubting/{build}/downstream"  # the pattern of the {build} wildcard


def config(eval_sets=()) -> dict:
    return {"build": "mine", "doubting": {"downstream": {"base_models": ["m1", "m2"], "eval_sets": list(eval_sets)}},
            "retrieval": {"dense": {"encode_shard_mb": 1}}}


def test_the_builds_own_collection_is_its_store_and_a_beir_set_its_own():
    assert wiring.store("mine", "mine", "work/store/mine/passages.arrow") == "work/store/mine/passages.arrow"
    assert wiring.store("beir_scifact", "mine", "x") == f"{DS}/beir/beir_scifact/passages.arrow"


def test_a_beir_sets_inputs_are_its_corpus_queries_and_qrels_of_its_split():
    c = config(eval_sets=[{"name": "scifact", "path": "data/scifact"},
                          {"name": "fiqa", "path": "data/fiqa", "split": "dev"}])
    assert list(wiring.beir_sets(c)) == ["beir_scifact", "beir_fiqa"]
    assert wiring.beir_files(c, "beir_fiqa") == {
        "corpus": "data/fiqa/corpus.jsonl", "queries": "data/fiqa/queries.jsonl", "qrels": "data/fiqa/qrels/dev.tsv"}
    assert wiring.beir_files(c, "beir_scifact")["qrels"] == "data/scifact/qrels/test.tsv"


def test_the_encoding_jobs_follow_the_source_files_size(tmp_path):
    (tmp_path / "beir").mkdir()
    (tmp_path / "beir/corpus.jsonl").write_bytes(b"x" * (2 * 2**20 + 1))  # just over 2 MiB: 3 jobs of 1 MiB
    (tmp_path / "collection.tsv").write_bytes(b"x" * 10)
    c = config(eval_sets=[{"name": "b", "path": str(tmp_path / "beir")}])
    assert wiring.shard_count(c, "beir_b", str(tmp_path / "collection.tsv")) == 3
    assert wiring.shard_count(c, "mine", str(tmp_path / "collection.tsv")) == 1
    assert wiring.encoded("m1", "base", "beir_b", 3, "npy")[-1] == f"{DS}/encoded/m1/base/beir_b/0002.npy"


def test_a_trained_models_files_are_inputs_and_the_base_model_has_none():
    assert wiring.model_inputs("m1", "base") == {}
    inputs = wiring.model_inputs("m1", "release")
    assert inputs["training"] == f"{DS}/models/m1/release.train.json"
    assert inputs["model"] == wiring.model_files("m1", "release")
    assert inputs["model"][0].startswith(f"{DS}/models/m1/release/")


def test_the_builds_collection_is_evaluated_on_the_strict_release_and_official_qrels_a_beir_set_on_its_own():
    c = config(eval_sets=[{"name": "scifact", "path": "data/scifact"}])
    sets = wiring.qrels_sets(c, "mine", "work/assembled", "work/dev.qrels")
    assert sets == {"release_strict": (f"work/assembled/{TREC_STRICT}", 2), "official": ("work/dev.qrels", 1)}
    assert wiring.qrels_grades(sets) == {"release_strict": 2, "official": 1}
    beir = wiring.qrels_sets(c, "beir_scifact", "work/assembled", "work/dev.qrels")
    assert beir == {"scifact": (f"{DS}/beir/beir_scifact/qrels.trec", 1)}
    assert wiring.evaluate_inputs(c, "m1", "official", "beir_scifact", "dev.tsv", beir) == {
        "queries": f"{DS}/beir/beir_scifact/queries.tsv", "scifact": f"{DS}/beir/beir_scifact/qrels.trec",
        **wiring.model_inputs("m1", "official")}
    assert wiring.evaluate_inputs(c, "m1", "base", "mine", "dev.tsv", sets)["queries"] == "dev.tsv"


def test_every_base_model_is_trained_on_each_arm_and_evaluated_with_each_model_on_each_collection():
    c = config(eval_sets=[{"name": "s", "path": "p"}])
    assert wiring.trainings(c) == [("m1", "release"), ("m1", "official"), ("m2", "release"), ("m2", "official")]
    evaluations = wiring.evaluations(c)
    assert len(evaluations) == 2 * 3 * 2 and evaluations[:2] == [("m1", "base", "mine"), ("m1", "base", "beir_s")]
