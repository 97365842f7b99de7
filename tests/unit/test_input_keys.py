"""Every input a config names is listed with the key that names it, and a missing one is named by that key."""

from pathlib import Path

import yaml
from snakemake.utils import validate

from irdata.input_keys import doubting_input_paths, eval44b_input_paths, missing_input_lines

REPO = Path(__file__).resolve().parents[2]


def section(name: str, overrides: dict) -> dict:
    value = {**yaml.safe_load((REPO / "config.yaml").read_text())[name], **overrides}
    validate(value, str(REPO / "schemas" / f"{name}.schema.yaml"))
    return value


def test_the_demos_inputs_all_exist():
    demo = section("doubting", {})
    named = doubting_input_paths(demo)
    assert ("collection", "resources/demo/collection.tsv") in named and ("heldout_queries[1]", "resources/demo/"
                                                                          "queries.test.tsv") in named
    assert ("audit.human.sheets[0]", "resources/demo/human_audit.sheet.csv") in named
    assert missing_input_lines("doubting", named, REPO) == []
    assert missing_input_lines("eval44b", eval44b_input_paths(section("eval44b", {})), REPO) == []


def test_a_missing_file_is_named_by_its_key(tmp_path):
    wrong = section("doubting", {"collection": "resources/demo/nope.tsv", "audit": {"runs": ["runs/"]}})
    assert missing_input_lines("doubting", doubting_input_paths(wrong), REPO) == [
        "doubting.collection: resources/demo/nope.tsv: no such file or folder",
        "doubting.audit.runs[0]: runs/: no such file or folder"]


def test_a_beir_folder_names_its_files_and_splits_by_their_keys(tmp_path):
    folder = tmp_path / "scifact"
    (folder / "qrels").mkdir(parents=True)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/train.tsv"):
        (folder / name).write_text("")
    beir = section("doubting", {"source": {"format": "beir", "folder": str(folder), "train_split": "train",
                                           "dev_split": "dev"},
                                "audit": {"qrels": None, "queries": None, "human": {"sample_queries": 0}}})
    assert missing_input_lines("doubting", doubting_input_paths(beir), tmp_path) == [
        f"doubting.source.dev_split: {folder}/qrels/dev.tsv: no such file or folder"]
