"""Every command the two generated dataset cards print runs as printed, from the release folder the card
describes (packages built by the package functions, without the LLM). A printed command the table does
not name fails, so a new one gets its line. After all of them, and the cards' Python, the folder holds exactly
the files its SHA256SUMS lists. (README.md and docs/: tests/workflow/test_printed_commands.py.)"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_doubting_package import build as build_doubting
from test_doubting_package import table
from test_eval44b_package import build_in as build_eval44b
from test_eval44b_package import release_settings

from irdata.doubting.card import evaluation_qrels
from printed_commands import activated_env, assert_folder_is_its_sums, card_commands, code_blocks, run_shell
from synthetic_doubting import edge_cases

# the demo's paths: the package folder and the inputs the card's commands join with, relative to the
# workflow's working folder
PACKAGE_DIR = "results/doubting-ms-marco"
COLLECTION = "resources/demo/collection.tsv"
DEV_QUERIES = "resources/demo/queries.dev.small.tsv"
# ~/my_run.trec is the user's own run, in the user's home (HOME, here a folder of the test: `home`); the test
# writes one (below). What the commands write goes there too, never into the release folder
HOME = "home"
DOUBTING_COMMANDS = [
    "python examples/join_text.py --config judgments --split dev --collection ../../resources/demo/collection.tsv "
    "--queries ../../resources/demo/queries.dev.small.tsv --out ~/dev_judgments_text.parquet",
    "python examples/evaluate.py --qrels trec/dev.strict.qrels --run ~/my_run.trec",
    "python examples/evaluate.py --qrels trec/dev.strict.qrels --run ~/my_run.trec --per-query ~/per_query.tsv",
    "python examples/evaluate.py --qrels trec/dev.graded.qrels --run ~/my_run.trec",
    "python examples/evaluate.py --qrels trec/dev.strict.qrels --run examples/bm25_dev.trec   # the BM25 baseline",
    "python examples/evaluate.py --export-train-qrels ~/train.qrels --package .   # TREC qrels from the qrels train "
    "split",
]
# a build whose dev pairs all have grade 0 or 1, as the demo's: the strict qrels are empty, and the card
# prints the graded qrels at --min-rel 1, the one level evaluate.py can score
NO_STRICT_COMMANDS = [
    DOUBTING_COMMANDS[0],
    "python examples/evaluate.py --qrels trec/dev.graded.qrels --run ~/my_run.trec --min-rel 1",
    "python examples/evaluate.py --qrels trec/dev.graded.qrels --run ~/my_run.trec --min-rel 1 --per-query "
    "~/per_query.tsv",
    "python examples/evaluate.py --qrels trec/dev.graded.qrels --run examples/bm25_dev.trec --min-rel 1   # the BM25 "
    "baseline",
    DOUBTING_COMMANDS[-1],
]
EVAL44B_COMMANDS: list[str] = []
def release_with_inputs(root: Path, dev_grade_cap: int = 3) -> Path:
    """A Doubting release at the demo's package folder of a working folder that holds the demo's inputs
    (here with the ids the release refers to), and the user's run: each pair of the qrels the card scores
    (those of grade >= --min-rel) retrieved at rank 1, so that every metric is 1."""
    build_doubting(root, edge_cases(root / "w", dev_grade_cap=dev_grade_cap), out=PACKAGE_DIR,
                   collection=COLLECTION, dev_queries=DEV_QUERIES, package_dir=PACKAGE_DIR)
    pkg = root / PACKAGE_DIR
    judgments = table(pkg, "judgments", "dev")
    (root / "resources/demo").mkdir(parents=True)
    (root / COLLECTION).write_text("".join(f"{p}\ttext of {p}\n" for p in sorted(set(judgments["passage_id"]))))
    (root / DEV_QUERIES).write_text("".join(f"{q}\tquery {q}\n" for q in sorted(set(judgments["query_id"]))))
    qrels, min_rel = evaluation_qrels(json.loads((pkg / "MANIFEST.json").read_text())["trec"])
    pairs = [line.split() for line in (pkg / qrels).read_text().splitlines()]
    (root / HOME).mkdir()
    (root / HOME / "my_run.trec").write_text("".join(f"{q} Q0 {p} 1 1.0 mine\n" for q, _, p, g in pairs
                                                     if int(g) >= min_rel))
    return root


@pytest.fixture(scope="module")
def doubting_root(tmp_path_factory):
    return release_with_inputs(tmp_path_factory.mktemp("cardcmd"))


@pytest.fixture(scope="module")
def no_strict_root(tmp_path_factory):
    return release_with_inputs(tmp_path_factory.mktemp("nostrict"), dev_grade_cap=1)


def test_doubting_card_commands_are_the_table(doubting_root):
    assert card_commands(doubting_root / PACKAGE_DIR / "README.md") == DOUBTING_COMMANDS


def check_command_runs(pkg: Path, command: str, my_run_scores_one: bool) -> None:
    home = pkg.parents[1] / HOME
    out = run_shell(command, pkg, home=home).stdout
    if "join_text.py" in command:
        joined = pq.read_table(home / "dev_judgments_text.parquet").to_pandas()
        assert len(joined) and (joined["passage_text"] == "text of " + joined["passage_id"]).all()
        assert (joined["query_text"] == "query " + joined["query_id"]).all()
    elif "my_run.trec" in command and my_run_scores_one:
        assert "MRR@10\t1.0000" in out, out
    elif "--run" in command:
        # the graded qrels (grade-2 pairs count as relevant too) and the shipped baseline run: real scores
        assert "MRR@10" in out and "nDCG@10" in out, out
    else:
        assert (home / "train.qrels").exists()
    if "--per-query" in command:
        assert (home / "per_query.tsv").read_text().strip()


def copy_of_release(root: Path, name: str) -> Path:
    """A copy of the release folder beside it (so the card's relative paths reach the same inputs)."""
    copy = root / PACKAGE_DIR / ".." / name
    shutil.copytree(root / PACKAGE_DIR, copy)
    return copy.resolve()


@pytest.mark.parametrize("command", DOUBTING_COMMANDS, ids=lambda c: " ".join(c.split("#")[0].split()[1:]))
def test_doubting_card_command_runs_in_the_package_folder(doubting_root, command):
    check_command_runs(doubting_root / PACKAGE_DIR, command, "strict" in command)
    if "export-train-qrels" in command:
        assert (doubting_root / HOME / "train.qrels").read_text().strip()


@pytest.mark.parametrize("name", ["doubting_root", "no_strict_root"])
def test_after_every_printed_command_the_release_folder_holds_exactly_its_sums(name, request, tmp_path):
    """Every command the card prints, its loading code and examples/load.py, run in turn in a copy of the release
    folder: they write only into the user's home, and `sha256sum -c --strict` still passes."""
    root = request.getfixturevalue(name)
    folder = copy_of_release(root, f"copy-{tmp_path.name}")
    assert "`sha256sum -c --strict SHA256SUMS`" in (folder / "README.md").read_text()  # run as printed, below
    assert_folder_is_its_sums(folder)
    home = root / HOME
    for command in card_commands(folder / "README.md"):
        run_shell(command, folder, home=home)
    code = re.sub(r"^repo = .*$", "repo = os.getcwd()", loading_block(folder / "README.md"), flags=re.M)
    run_loading(code, folder, tmp_path / "hf")
    run_shell(f"HF_DATASETS_OFFLINE=1 HF_HOME={tmp_path / 'hf'} python examples/load.py .", folder, home=home)
    assert_folder_is_its_sums(folder)


def test_a_card_without_strict_pairs_prints_only_commands_that_run_and_says_why_at_them(no_strict_root):
    card = no_strict_root / PACKAGE_DIR / "README.md"
    assert (no_strict_root / PACKAGE_DIR / "trec/dev.strict.qrels").read_text() == ""
    assert card_commands(card) == NO_STRICT_COMMANDS
    block = card.read_text().split("## Evaluating on the dev qrels")[1].split("```")[1]
    assert block.lstrip().startswith("# this build has no strict pair (no dev pair got grade 3): "
                                     "trec/dev.strict.qrels is empty")
    text = " ".join(card.read_text().split())
    assert "--min-rel 1, which counts grade-1 pairs (marginally related) as relevant" in text
    assert "`--qrels trec/dev.graded.qrels --run examples/bm25_dev.trec` above scores it" in text
    assert "fourth command" not in text


@pytest.mark.parametrize("command", NO_STRICT_COMMANDS, ids=lambda c: " ".join(c.split("#")[0].split()[1:]))
def test_a_card_without_strict_pairs_command_runs(no_strict_root, command):
    check_command_runs(no_strict_root / PACKAGE_DIR, command, True)


def test_eval44b_card_commands_are_the_table(tmp_path, monkeypatch):
    _, out = build_eval44b(tmp_path / "a", monkeypatch)
    assert card_commands(Path(out["card"]).resolve()) == EVAL44B_COMMANDS


def loading_block(card: Path) -> str:
    """The card's `datasets` example, as printed."""
    return next("\n".join(block.lines) for block in code_blocks(str(card), card.read_text(encoding="utf-8"))
                if block.language == "python" and "load_dataset" in "\n".join(block.lines))


def run_loading(code: str, cwd: Path, hf_home: Path) -> str:
    env = dict(activated_env(), HF_DATASETS_OFFLINE="1", HF_HOME=str(hf_home))
    proc = subprocess.run([sys.executable, "-c", code + "\nprint('loaded', repo)"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def check_loading_code_runs(root: Path, folder: str, hf_home: Path) -> None:
    """A build not on the Hub: its card's loading code runs as printed from the workflow's folder, and with the
    line the card gives for it from inside the release folder; the Hub id is only the line for once pushed."""
    code = loading_block(root / folder / "README.md")
    assert "# once pushed to the Hub as" in code and 'repo = os.path.abspath("' + folder + '")' in code
    assert f"loaded {root / folder}" in run_loading(code, root, hf_home)
    inside = re.sub(r"^repo = .*$", "repo = os.getcwd()", code, flags=re.M)
    assert f"loaded {root / folder}" in run_loading(inside, root / folder, hf_home)


def test_doubting_card_loading_code_runs_inside_and_outside_the_folder(doubting_root, tmp_path):
    check_loading_code_runs(doubting_root, PACKAGE_DIR, tmp_path / "hf")
    # examples/load.py from inside the folder, given "." (datasets itself cannot load the path ".")
    out = run_shell(f"HF_DATASETS_OFFLINE=1 HF_HOME={tmp_path / 'hf'} python examples/load.py .",
                    doubting_root / PACKAGE_DIR).stdout
    assert "== judgments / dev:" in out


def test_eval44b_card_loading_code_runs_inside_and_outside_the_folder(tmp_path, monkeypatch):
    _, out = build_eval44b(tmp_path / "a", monkeypatch)
    folder = release_settings()["folder"]
    shutil.copytree(Path(out["card"]).resolve().parent, tmp_path / "a" / folder)
    check_loading_code_runs(tmp_path / "a", folder, tmp_path / "hf")
    # every block of the card's Python, run inside the folder, leaves it holding exactly its SHA256SUMS
    release = tmp_path / "a" / folder
    for block in code_blocks("README.md", (release / "README.md").read_text(encoding="utf-8")):
        if block.language == "python":
            code = re.sub(r"^repo = .*$", "repo = os.getcwd()", "\n".join(block.lines), flags=re.M)
            run_loading(code if "repo" in code else "repo = None\n" + code, release, tmp_path / "hf")
    assert_folder_is_its_sums(release)


def test_a_card_on_the_hub_loads_by_repo_id(tmp_path):
    root = tmp_path / "hub"
    build_doubting(root, edge_cases(root / "w"), out=PACKAGE_DIR, package_dir=PACKAGE_DIR, on_hub=True)
    code = loading_block(root / PACKAGE_DIR / "README.md")
    assert 'repo = "Shroedingercat/doubting-ms-marco"' in code and "os.getcwd" not in code
