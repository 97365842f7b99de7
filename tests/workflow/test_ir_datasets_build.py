"""An ir_datasets build end to end (README's my-irds.yaml, its `scifact` build, over config.yaml), read offline from
a cache the test lays out as ir_datasets does (tests/ir_datasets_cache.py), with the in-process model and tiny
budgets: the input check, titles in the store, the dedup against the dev id, and a release whose card names the
ids."""

import json
from pathlib import Path

import pytest

from ir_datasets_cache import SCIFACT_DOCS, readme_overlay, scifact_cache
from irdata.passage_store import PassageStore

pytestmark = [pytest.mark.workflow, pytest.mark.llm]

TINY = """\
builds:
  scifact:
    train_sample: {size: 1, seed: 0, with_duplicates: true}
    dev_sample: {size: 2, seed: 0}
    shards: {train: 1, dev: 1}
    downstream: {enabled: false}
    annotation:
      agent:
        train: {max_turns: 2, max_tool_calls: 2, results_per_search: 3, snippet_chars: 160}
        dev: {max_turns: 2, max_tool_calls: 2, results_per_search: 3, snippet_chars: 160}
      answer_max_tokens: 16
"""


def test_an_ir_datasets_build_runs_offline_from_the_cache(workflow, tmp_path, monkeypatch):
    root: Path = workflow.root
    (root / "my-irds.yaml").write_text(readme_overlay())
    (root / "tiny_irds.yaml").write_text(TINY)
    home = scifact_cache(tmp_path / "ir_datasets")
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    workflow.snakemake("--profile", "profiles/local", "--cores", "2", "scifact", "--configfile", "config.yaml",
                       "my-irds.yaml", "tiny_irds.yaml", timeout=2400)
    inputs = json.loads((root / "work/doubting/scifact/inputs.json").read_text())
    assert inputs["inputs"] == ["ir_datasets:beir/scifact/train", "ir_datasets:beir/scifact/test"]
    assert inputs["rows"]["collection"] == len(SCIFACT_DOCS)
    store = PassageStore(root / "work/store/scifact/passages.arrow")
    assert store.title("d1") == "Alpha"
    # q5 ("WHERE is delta") repeats the dev query q2 under the text rule: held out of train, naming the dev id
    excluded = (root / "work/doubting/scifact/ids/train_excluded.tsv").read_text()
    [line] = [line for line in excluded.splitlines() if line.startswith("q5\t")]
    assert line.split("\t")[1:] == ["heldout", "q2", "source.dev_id", "ir_datasets:beir/scifact/test"]
    card = (root / "results/scifact/README.md").read_text()
    assert "`beir/scifact/train`" in card and "`beir/scifact/test`" in card
