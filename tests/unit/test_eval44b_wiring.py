"""irdata.eval44b.wiring and irdata.layout: the files rules/eval44b.smk and rules/retrieval.smk name."""

from irdata.eval44b import wiring
from irdata.eval44b.split import SPLITS
from irdata.layout import index_dir, index_files


def mining_config(bm25=None, dense=None) -> dict:
    return {"retrieval": {"bm25": {"k1": 0.9, "b": 0.4}, "dense": {"model": "m", "hnsw_m": 32}},
            "eval44b": {"mining": {"bm25": bm25 or {}, "dense": dense or {}}}}


def test_an_index_is_its_kinds_files_in_its_collections_folder():
    assert index_dir("msmarco", "bm25") == "work/index/msmarco/bm25"
    assert index_files("work/index/papers44b/dense", "dense") == [
        "work/index/papers44b/dense/settings.json", "work/index/papers44b/dense/ids.arrow",
        "work/index/papers44b/dense/index.faiss"]
    assert len(index_files("x", "bm25")) == 8 and index_files("x", "bm25")[0] == "x/settings.json"


def test_a_miner_searches_the_shared_index_unless_its_settings_are_its_own():
    shared = mining_config()
    assert wiring.miner_index_files(shared, "bm25") == index_files("work/index/papers44b/bm25", "bm25")
    assert wiring.miner_index_dir(shared, "dense") == "work/index/papers44b/dense"
    own = mining_config(bm25={"k1": 1.2})
    assert wiring.miner_index_dir(own, "bm25") == "work/eval44b/miners/bm25"
    assert wiring.miner_index_files(own, "bm25") == wiring.miner_own_index_files("bm25")
    assert wiring.miner_index_dir(own, "dense") == "work/index/papers44b/dense"  # only the bm25 miner is its own


def test_the_staged_release_names_each_file_in_the_staging_folder():
    staged = wiring.staged_release()
    assert list(staged) == ["test", "results", "ranks", "manifest", "train_pairs", "val_pairs", "card", "croissant",
                            "sums"]
    assert staged["card"] == "work/eval44b/release/README.md" and staged["sums"] == "work/eval44b/release/SHA256SUMS"


def test_a_fine_tuned_arm_reads_its_model_and_training_report_and_no_other_arm_does():
    inputs = wiring.arm_model_inputs("finetuned_bi_encoder")
    assert inputs["training"] == "work/eval44b/models/bi_encoder.train.json"
    assert inputs["model"][0].startswith("work/eval44b/models/bi_encoder/")
    assert "work/eval44b/models/bi_encoder/1_Pooling/config.json" in inputs["model"]
    assert wiring.model_files("cross_encoder") == wiring.arm_model_inputs("finetuned_cross_encoder")["model"]
    assert wiring.arm_model_inputs("bm25") == {}


def test_the_per_split_files_are_named_by_split():
    splits = SPLITS
    assert splits == ("train", "val", "test")
    assert wiring.query_files(splits) == {s: f"work/eval44b/queries/{s}.jsonl" for s in splits}
    assert list(wiring.mined_files(splits)) == ["mined_train", "mined_val", "mined_test", "report_train",
                                                "report_val", "report_test"]
    assert wiring.mined_files(splits)["report_val"] == "work/eval44b/mined/val.report.json"
