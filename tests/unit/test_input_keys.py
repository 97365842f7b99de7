"""Every input a config names is listed with the key that names it, and a missing one is named by that key
before the first job (rules/common.smk)."""

from pathlib import Path

import yaml

from demo_config import workflow_builds
from irdata.builds import deep_merge
from irdata.input_keys import missing_inputs

REPO = Path(__file__).resolve().parents[2]


def config_with(overlay: dict) -> dict:
    return deep_merge(yaml.safe_load((REPO / "config.yaml").read_text()), overlay)


def missing(overlay: dict, folder: Path = REPO) -> list[str]:
    config = config_with(overlay)
    return missing_inputs(workflow_builds(config), config, folder)


def test_the_demos_inputs_all_exist():
    assert missing({}) == []


def test_a_missing_file_is_named_by_its_key():
    assert missing({"builds": {"demo": {"collection": "resources/demo/nope.tsv", "audit": {"runs": ["runs/"]}}},
                    "eval44b": {"papers": "papers.jsonl"}}) == [
        "builds.demo.collection: resources/demo/nope.tsv: no such file or folder",
        "builds.demo.audit.runs[0]: runs/: no such file or folder",
        "eval44b.papers: papers.jsonl: no such file or folder"]


def test_a_beir_folder_names_its_files_and_splits_by_their_keys(tmp_path):
    folder = tmp_path / "scifact"
    (folder / "qrels").mkdir(parents=True)
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/train.tsv"):
        (folder / name).write_text("")
    beir = {"version": "v1",
            "source": {"format": "beir", "folder": str(folder), "train_split": "train", "dev_split": "dev"},
            "audit": {"qrels": None, "queries": None, "human": {"sample_queries": 0, "sheets": []}},
            "downstream": {"eval_sets": [{"name": "nf", "path": "nfcorpus"}]}}
    assert missing({"builds": {"demo": None, "scifact": beir}}) == [
        f"builds.scifact.source.dev_split: {folder}/qrels/dev.tsv: no such file or folder",
        *(f"builds.scifact.downstream.eval_sets[0].path: nfcorpus/{name}: no such file or folder"
          for name in ("corpus.jsonl", "queries.jsonl")),
        "builds.scifact.downstream.eval_sets[0].split: nfcorpus/qrels/test.tsv: no such file or folder"]
