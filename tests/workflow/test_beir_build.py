"""A BEIR-format folder end to end (config/beir-example.yaml over config.yaml, resources/beir-example/), with the
in-process model and tiny budgets: the input check, titles in the store, the dedup against the folder's other
splits, and a release named for it that loads with `datasets`. It is built as a second build beside the demo, in
the demo build's folder (tests/workflow/conftest.py): the demo's files stay byte for byte, nothing of the demo is
planned again, and the report, opened in headless Chromium, shows each build under its own title with its own
figures and captions."""

import hashlib
import json
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from croissant_check import NO_DATE, NOT_SEMVER, check_croissant
from irdata.passage_store import PassageStore
from printed_commands import block_commands, code_blocks, run_shell
from release_loading import load_every_config
from repo_copy import REPO
from report_browser import chromium, open_report
from workflow_run import Workflow

pytestmark = [pytest.mark.workflow, pytest.mark.llm]

PACKAGE = "results/doubting-beir-example"
DEMO_PUBLISHED = "work/doubting/demo/published.json"  # what the demo build built (tests/workflow/conftest.py)
# the BEIR example's own sizes kept small, in its own keys (the shared ones are the demo's too): two agent turns,
# two train and two dev queries, one shard each; no downstream comparison (the demo build beside it runs the one
# end-to-end comparison)
TINY = """\
builds:
  beir-example:
    train_sample: {size: 1, seed: 0, with_duplicates: true}
    downstream: {enabled: false}
    annotation:
      agent:
        train: {max_turns: 2, max_tool_calls: 2, results_per_search: 3, snippet_chars: 160}
        dev: {max_turns: 2, max_tool_calls: 2, results_per_search: 3, snippet_chars: 160}
      answer_max_tokens: 16
"""
TITLES = {"demo": "Doubting MS MARCO", "beir-example": "Doubting BEIR example"}
# each build's figures and tables in the report (rules/report.smk); the BEIR example runs no downstream comparison
REPORTED = {"beir-example": ["summary.html", "grades.png", "wood.png", "proposals.png", "failures.html", "audit.html",
                             "agent.html"]}
REPORTED["demo"] = [*REPORTED["beir-example"], "downstream.html", "downstream.png"]
# the grades caption of each build: its splits' grading modes (the BEIR folder has no reference answers)
GRADES_CAPTION = {"demo": "The train split was graded query_only, the dev split answer_hinted: the two splits are "
                          "not comparable.",
                  "beir-example": "Both splits were graded query_only."}
# a message docutils prints while Snakemake renders the captions and the front page
DOCUTILS_MESSAGE = re.compile(r".*\((?:DEBUG|INFO|WARNING|ERROR|SEVERE)/\d\).*|.*System Message.*")
# what the demo build wrote: its work folder, store, indexes, release, logs and benchmarks
DEMO_FILES = ("work/doubting/demo", "work/store/demo", "work/index/demo", "results/doubting-ms-marco",
              "logs/agent_search/demo", "benchmarks/assemble/demo.tsv")


def digests(root: Path) -> dict[str, str]:
    """sha256 of every file of the demo build."""
    files = [p for name in DEMO_FILES for p in ([root / name] if (root / name).is_file()
                                                 else sorted((root / name).rglob("*"))) if p.is_file()]
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="module")
def built(demo_build) -> Workflow:
    wf = demo_build
    before = digests(wf.root)
    (wf.root / "tiny_beir.yaml").write_text(TINY)
    beir_args = ("config/beir-example.yaml", "tiny_beir.yaml")
    # the BEIR build alone (`snakemake beir-example`), in the folder where the demo is built
    wf.snakemake("--profile", "profiles/local", "--cores", "2", "beir-example", *wf.args, *beir_args,
                 timeout=1800)
    wf.demo_before, wf.demo_after = before, digests(wf.root)
    wf.both_args = (*wf.args, *beir_args)
    return wf


def test_the_demo_build_stays_byte_for_byte_and_is_planned_no_more(built):
    assert built.demo_before and built.demo_after == built.demo_before
    # neither with both builds declared nor with the demo's config alone does anything of the demo's release
    # (what the demo build built) rerun, nor anything of the BEIR build
    assert built.planned_rules(DEMO_PUBLISHED, *built.both_args) == []
    assert built.planned_rules(DEMO_PUBLISHED, *built.args) == []
    assert built.planned_rules("beir-example", *built.both_args) == []


def test_the_report_shows_each_build_under_its_own_title_in_a_browser(built, tmp_path):
    chromium()  # before the report is made: a machine without the browser says so at once
    built.snakemake("--profile", "profiles/local", "--cores", "2", "doubting", *built.both_args)  # the demo's report
    made = built.snakemake("--report", "report.html", "doubting", *built.both_args)
    assert not DOCUTILS_MESSAGE.findall(made.stdout + made.stderr)
    seen = open_report(built.root / "report.html", tmp_path)
    assert not seen["errors"], seen["errors"]
    assert seen["done"] and set(seen["categories"]) == set(TITLES.values())
    front = " ".join(seen["front"].split())
    assert "This report shows 2 builds, one category each" in front and "System Message" not in front
    for build, title in TITLES.items():
        other = next(t for t in TITLES.values() if t != title)
        assert title in seen["menu"] and title in seen["frontLinks"][title].splitlines()
        shown = seen["categories"][title]
        assert set(shown["subcategories"]) == {"Figures", "Tables"}
        assert sorted(r["name"] for r in shown["results"].values()) == sorted(REPORTED[build])
        for path, result in shown["results"].items():
            assert path.startswith(f"work/report/doubting/{build}/") and result["rendered"], (path, result)
            assert result["name"] in shown["subcategories"][result["subcategory"]], path
            assert result["caption"] and "System Message" not in result["captionHtml"], path
            assert other not in result["caption"] and "MS MARCO" not in result["caption"], path
            if result["kind"] == "html":
                assert result["title"].startswith(f"{title}: ") and other not in result["text"], path
        grades = " ".join(next(r for r in shown["results"].values() if r["name"] == "grades.png")["caption"].split())
        assert GRADES_CAPTION[build] in grades, grades


def test_the_input_check_keeps_titles_and_holds_out_the_other_splits(built):
    work = built.root / "work/doubting/beir-example"
    inputs = json.loads((work / "inputs.json").read_text())
    assert inputs["format"] == "beir" and inputs["rows"]["collection"] == 12
    assert "resources/beir-example/corpus.jsonl" in inputs["files"]
    store = PassageStore(built.root / "work/store/beir-example/passages.arrow")
    assert store.titled and store.title("d12") == "Tides"
    # train q5 repeats q9 of the dev qrels split, which config/beir-example.yaml holds out
    excluded = (work / "ids/train_excluded.tsv").read_text().splitlines()
    assert "q5\theldout\tq9\tsource.folder\tresources/beir-example/qrels/dev.tsv" in excluded
    assert set((work / "ids/dev_all.txt").read_text().split()) <= {"q6", "q7", "q8"}


def test_the_release_is_named_for_the_beir_example_and_loads_with_datasets(built):
    package = built.root / PACKAGE
    check = subprocess.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=package, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    check_croissant(package, (NO_DATE, NOT_SEMVER))
    assert json.loads((package / "croissant.json").read_text())["name"] == "Shroedingercat/doubting-beir-example"
    card = (package / "README.md").read_text()
    header = yaml.safe_load(card.split("---\n")[1])
    assert header["pretty_name"] == "Doubting BEIR example" and "# Doubting BEIR example" in card
    assert "the BEIR folder `resources/beir-example`" in " ".join(card.split())
    assert "Doubting MS MARCO" not in card.replace("in the format of the Doubting MS MARCO release", "")
    dev = pq.read_table(package / "judgments/dev.parquet").to_pandas()
    assert set(dev["grading"]) == {"query_only"}  # no reference answers in BEIR
    loaded = load_every_config(package, header["configs"], built.root / "hf")
    rows = json.loads((package / "MANIFEST.json").read_text())["rows"]
    assert loaded["judgments"]["dev"] == len(dev) and loaded and rows


def test_the_cards_join_recipe_runs_as_printed_with_the_beir_files(built):
    package = built.root / PACKAGE
    blocks = code_blocks("README.md", (package / "README.md").read_text())
    join = [c for b in blocks for c in block_commands(b) if "join_text.py" in c]
    assert join == ["python examples/join_text.py --config judgments --split dev --collection "
                    "../../resources/beir-example/corpus.jsonl --queries ../../resources/beir-example/queries.jsonl "
                    "--out ~/dev_judgments_text.parquet"]
    home = built.root / "home"
    home.mkdir(exist_ok=True)
    run_shell(join[0], package, home=home)
    joined = pq.read_table(home / "dev_judgments_text.parquet").to_pandas()
    corpus = {d["_id"]: d for d in map(json.loads, (built.root / "resources/beir-example/corpus.jsonl").open())}
    assert len(joined) and (joined["passage_text"] == joined["passage_id"].map(lambda p: corpus[p]["text"])).all()
    assert (joined["passage_title"] == joined["passage_id"].map(lambda p: corpus[p]["title"])).all()
    assert joined["query_text"].notna().all()


def readme_beir_build() -> tuple[dict, str]:
    """The overlay README's section "A BEIR folder as the input" writes (my-beir.yaml) and the command it prints
    for it, as printed."""
    section = (REPO / "README.md").read_text().split("\n## A BEIR folder as the input\n", 1)[1].split("\n## ", 1)[0]
    blocks = code_blocks("README.md", section)
    overlay = yaml.safe_load("\n".join(next(b for b in blocks if b.language == "yaml").lines))
    commands = [c for b in blocks if b.language == "bash" for c in block_commands(b) if "my-beir.yaml" in c]
    return overlay, commands[0]


@pytest.fixture(scope="module")
def readme_build(built) -> tuple[str, dict, str]:
    """README's BEIR build, built beside the others in the same folder: its folder a copy of the BEIR example, its
    sizes the test's (TINY's, under its name); the printed command itself is dry-run and run up to its first job
    by tests/workflow/test_printed_commands.py."""
    overlay, command = readme_beir_build()
    (name, build), = overlay["builds"].items()
    assert shlex.split(command) == ["snakemake", name, "--configfile", "config.yaml", "my-beir.yaml"]
    shutil.copytree(built.root / "resources/beir-example", built.root / build["source"]["folder"])
    (built.root / "my-beir.yaml").write_text(yaml.safe_dump(overlay))
    (built.root / "tiny_readme.yaml").write_text(TINY.replace("beir-example:", f"{name}:"))
    proc = built.snakemake(name, *built.args, "my-beir.yaml", "tiny_readme.yaml", timeout=1800)
    return name, build, proc.stdout + proc.stderr


def test_a_beir_build_written_from_the_readme_builds_its_release_and_grades_dev_query_only(built, readme_build):
    name, build, console = readme_build
    package = built.root / f"results/{name}"
    check = subprocess.run(["sha256sum", "-c", "--strict", "SHA256SUMS"], cwd=package, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    dev = pq.read_table(package / "judgments/dev.parquet").to_pandas()
    assert len(dev) and set(dev["grading"]) == {"query_only"}  # without a grading key: BEIR's default
    card = " ".join((package / "README.md").read_text().split())
    assert f"# Doubting {name}" in card and build["corpus_description"] in card
    # the console: what the run published, at its end, and no script's details
    published = f"build {name}: published release {build['version']} at results/{name}."
    assert published in console.split("steps (100%) done", 1)[1], console[-3000:]
    assert " INFO " not in console and "Loading faiss" not in console
