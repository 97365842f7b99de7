"""Every command the two generated dataset cards print runs as printed, from the release folder the card
describes (packages built by the package functions, without the LLM). A printed command the table does
not name fails, so a new one gets its line. (README.md and docs/: tests/workflow/test_printed_commands.py.)"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_doubting_package import build as build_doubting
from test_doubting_package import table
from test_eval44b_package import build_in as build_eval44b

from printed_commands import SHELL_LANGUAGES, block_commands, code_blocks, inline_commands, run_shell
from synthetic_doubting import edge_cases

# the demo's paths: the package folder and the inputs the card's commands join with, relative to the
# workflow's working folder
PACKAGE_DIR = "results/doubting-ms-marco"
COLLECTION = "resources/demo/collection.tsv"
DEV_QUERIES = "resources/demo/queries.dev.small.tsv"
# my_run.trec is the user's own run; the test writes one (below)
DOUBTING_COMMANDS = [
    "python examples/join_text.py --config judgments --split dev --collection ../../resources/demo/collection.tsv "
    "--queries ../../resources/demo/queries.dev.small.tsv --out dev_judgments_text.parquet",
    "python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec",
    "python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec --per-query per_query.tsv",
    "python examples/evaluate.py --qrels trec/dev.graded.qrels --run my_run.trec",
    "python examples/evaluate.py --qrels trec/dev.strict.qrels --run examples/bm25_dev.trec   # the BM25 baseline",
    "python examples/evaluate.py --export-train-qrels train.qrels --package .   # TREC qrels from the qrels train "
    "split",
]
EVAL44B_COMMANDS: list[str] = []
# code blocks of the cards that are not commands: Python that loads the release through `datasets`
# (tests/unit/test_doubting_package.py loads every config offline; test_eval44b_package.py runs the 44b
# card's blocks), and the 44b card's BibTeX
NOT_COMMANDS = {"python", "bibtex"}


def card_commands(card: Path) -> list[str]:
    text = card.read_text(encoding="utf-8")
    commands = [c for block in code_blocks(card.name, text) if block.language not in NOT_COMMANDS
                for c in block_commands(block)]
    assert all(b.language in SHELL_LANGUAGES | NOT_COMMANDS for b in code_blocks(card.name, text))
    return commands + inline_commands(text)


@pytest.fixture(scope="module")
def doubting_root(tmp_path_factory):
    """A Doubting release at the demo's package folder of a working folder that holds the demo's inputs
    (here with the ids the release refers to)."""
    root = tmp_path_factory.mktemp("cardcmd")
    build_doubting(root, edge_cases(root / "w"), out=PACKAGE_DIR, collection=COLLECTION, dev_queries=DEV_QUERIES,
                   package_dir=PACKAGE_DIR)
    pkg = root / PACKAGE_DIR
    judgments = table(pkg, "judgments", "dev")
    (root / "resources/demo").mkdir(parents=True)
    (root / COLLECTION).write_text("".join(f"{p}\ttext of {p}\n" for p in sorted(set(judgments["passage_id"]))))
    (root / DEV_QUERIES).write_text("".join(f"{q}\tquery {q}\n" for q in sorted(set(judgments["query_id"]))))
    # the user's run: each strict pair retrieved at rank 1 (so every metric is 1)
    qrels = [line.split() for line in (pkg / "trec/dev.strict.qrels").read_text().splitlines()]
    (pkg / "my_run.trec").write_text("".join(f"{q} Q0 {p} 1 1.0 mine\n" for q, _, p, _ in qrels))
    return root


def test_doubting_card_commands_are_the_table(doubting_root):
    assert card_commands(doubting_root / PACKAGE_DIR / "README.md") == DOUBTING_COMMANDS


@pytest.mark.parametrize("command", DOUBTING_COMMANDS, ids=lambda c: " ".join(c.split("#")[0].split()[1:]))
def test_doubting_card_command_runs_in_the_package_folder(doubting_root, command):
    pkg = doubting_root / PACKAGE_DIR
    out = run_shell(command, pkg).stdout
    if "join_text.py" in command:
        joined = pq.read_table(pkg / "dev_judgments_text.parquet").to_pandas()
        assert len(joined) and (joined["passage_text"] == "text of " + joined["passage_id"]).all()
        assert (joined["query_text"] == "query " + joined["query_id"]).all()
    elif "my_run.trec" in command and "strict" in command:
        assert "MRR@10" in out and "1.0" in out, out
    elif "--run" in command:
        # the graded qrels (grade-2 pairs count as relevant too) and the shipped baseline run: real scores
        assert "MRR@10" in out and "nDCG@10" in out, out
    else:
        assert (pkg / "train.qrels").read_text().strip()


def test_eval44b_card_commands_are_the_table(tmp_path, monkeypatch):
    _, out = build_eval44b(tmp_path / "a", monkeypatch)
    assert card_commands(Path(out["card"]).resolve()) == EVAL44B_COMMANDS
