"""Every command README.md and docs/*.md print runs as printed, in a fresh copy of the repository with the
YAML blocks the text shows written to the files they name. A command that would build runs as a dry-run
(-n added); one that needs what this machine has not (vLLM, SLURM) is checked for its parts that can run.
The table below says how each command runs: a printed command that is not in it fails the test, so
a new command gets its line.
(The dataset cards' commands: tests/unit/test_card_commands.py.)"""

from __future__ import annotations

import copy as copy_module
import http.server
import os
import shlex
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
import yaml
from snakemake.cli import get_argument_parser
from test_production_config import production_inputs

from irdata.demo_identity import OWN_IDENTITY
from printed_commands import (
    SHELL_LANGUAGES,
    SYSTEM_PATH,
    activated_env,
    block_commands,
    code_blocks,
    dry,
    inline_commands,
    run_shell,
    scripts_checked,
    segments,
)
from repo_copy import REPO, copy_repo

pytestmark = pytest.mark.workflow

DOCS = ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "docs").glob("*.md"))]
# outside the repository copy, the folders a command names are replaced by ones in the test's folder
SHARED_URLS = "/shared/$USER/llm_urls"

PRODUCTION_SHARDS = "shards: {train: 503, dev: 70}"

RUN, DRY, CHECK, ABSENT, COLLECT, REPORT = "run", "dry-run", "check", "absent", "collect", "report"
# How each printed command runs here:
#   run      as printed (a command that only plans or lists)
#   dry-run  as printed with -n added to its snakemake invocations
#   check    its snakemake part as a dry-run, its shell scripts with bash -n: it installs, runs the whole
#            test suite or starts a cluster
#   absent   not run: its program (vLLM, SLURM's sbatch/scancel) is not on this machine; its scripts get bash -n
#   collect  pytest with --collect-only (the tests it names run in their own place)
#   report   `--report` needs a built release: its arguments parse and its targets are the workflow's
# the URL folder and llm_servers.yaml that other commands use: run first, against local servers
SETUP = [
    f"mkdir -p {SHARED_URLS}",
    f"bash tools/slurm/collect_base_urls.sh {SHARED_URLS} --min 4 --wait 1800 --model Qwen2.5-72B-Instruct "
    "> llm_servers.yaml",
]
COMMANDS = {
    **{command: RUN for command in SETUP},
    "bash tools/install.sh && .venv/bin/snakemake --profile profiles/local": CHECK,
    "bash tools/test.sh": CHECK,
    "vllm serve Qwen/Qwen3-8B --port 8000 --enable-auto-tool-choice --tool-call-parser hermes &": ABSENT,
    ".venv/bin/snakemake --profile profiles/local doubting --configfile config.yaml my-server.yaml --config "
    "'builds={demo: {version: v0.2-demo}}'": DRY,
    ".venv/bin/snakemake --profile profiles/local -n --configfile config.yaml config/beir-example.yaml": RUN,
    '.venv/bin/snakemake --profile profiles/local -n --configfile config.yaml ef-search.yaml | grep -E '
    '"^rule|reason:|frozen"': RUN,
    ".venv/bin/snakemake --profile profiles/local --configfile config.yaml ef-search.yaml --config "
    "'builds={demo: {version: v0.2-demo}}'": DRY,
    "snakemake demo": DRY,
    ".venv/bin/snakemake --profile profiles/local --configfile config.yaml my-data.yaml my-server.yaml": DRY,
    "snakemake --profile profiles/slurm doubting --configfile config.yaml config/production.yaml "
    "llm_servers.yaml": DRY,
    ".venv/bin/snakemake --profile profiles/local -n                # what would run, with the reason for each "
    "job": RUN,
    '.venv/bin/snakemake --profile profiles/local -n | grep -E "^rule|reason:"   # only each job and its '
    "reason": RUN,
    ".venv/bin/snakemake --profile profiles/local -n --quiet rules   # only the job counts per rule": RUN,
    ".venv/bin/snakemake --list-changes input                     # outputs whose set of input files "
    "changed": RUN,
    ".venv/bin/snakemake --summary                                # every output with its rule, date and "
    "status": RUN,
    ".venv/bin/snakemake --lint                                   # style checks of the workflow (kept "
    "clean)": RUN,
    ".venv/bin/python -m pip install -r requirements-test.txt && .venv/bin/python -m pytest tests/unit": COLLECT,
    "snakemake --profile profiles/local beir-example --configfile config.yaml config/beir-example.yaml": DRY,
    ".venv/bin/snakemake --profile profiles/local work/doubting/demo/human_audit/sheet.csv": DRY,
    "snakemake doubting": DRY,
    "snakemake eval44b": DRY,
    "snakemake downstream": DRY,
    "snakemake --report report.html": REPORT,
    "snakemake --report report.html doubting": REPORT,
    "snakemake --profile profiles/slurm": DRY,
    "python tools/config_reference.py": RUN,
    ".venv/bin/python tools/upgrade_code_identity.py --configfile config.yaml": RUN,
    ".venv/bin/python bench/bench_stage_costs.py benchmarks": RUN,
    "snakemake -d /scratch/run1 --profile profiles/local doubting": DRY,
    "bash tools/install.sh        # the workflow's .venv, with snakemake-executor-plugin-slurm==2.8.0 "
    "(requirements.txt)": CHECK,
    "snakemake --profile profiles/slurm -n                  # what would run, and why (-r)": RUN,
    "snakemake --profile profiles/slurm                     # the whole build": DRY,
    "snakemake --profile profiles/slurm --resources llm_slots=16 --configfile config.yaml "
    "config/production.yaml": DRY,
    "snakemake --profile profiles/slurm --default-resources slurm_account=myproj slurm_partition=cpu mem_mb=2000 "
    "runtime=60": DRY,
    "sbatch -p gpu -A myproj --array=0-3 tools/slurm/vllm_server.sbatch /shared/models/Qwen2.5-72B-Instruct "
    f"{SHARED_URLS} --tensor-parallel-size 1": ABSENT,
    "snakemake --profile profiles/slurm --resources llm_slots=16 --configfile config.yaml config/production.yaml "
    "llm_servers.yaml": DRY,
    "scancel --name irdata-vllm      # when done": ABSENT,
    ".venv/bin/python -m pytest tests/slurm -v": COLLECT,
    "IRDATA_SLURM_TEST_TARGETS=all .venv/bin/python -m pytest tests/slurm   # everything (slow)": COLLECT,
    "sudo bash tools/slurm/start_cluster.sh /var/tmp/irdata-slurm    # installs and starts, ~25-40 s the first "
    "time": CHECK,
    ". /var/tmp/irdata-slurm/env.sh                                   # SLURM_CONF for sinfo/sbatch/sacct": ABSENT,
    "snakemake shard_queries --profile profiles/slurm --slurm-init-seconds-before-status-checks 5 "
    "--slurm-no-account": DRY,
    "sudo bash tools/slurm/stop_cluster.sh /var/tmp/irdata-slurm [--purge]": CHECK,
    "snakemake -n": RUN,
    "snakemake --unlock": RUN,
    "bash tools/install.sh": CHECK,
    ".venv/bin/snakemake": DRY,
    "snakemake": DRY,
}
# code blocks that are not shell commands, by document and first line: YAML written to the file the text
# names, or merged into it; anything else says why it is not run
BLOCKS = {
    ("README.md", "llm:"): ("write", "my-server.yaml"),
    ("README.md", "builds:"): ("write", "my-data.yaml"),
    ("README.md", "retrieval:"): ("write", "ef-search.yaml"),
    ("README.md", "Snakefile            includes rules/*.smk, validates config.yaml; targets all, doubting, eval44b"):
        "the layout of the repository",
    ("docs/cluster.md", "set-resources:"): ("merge", "profiles/slurm/config.yaml"),
    ("docs/cluster.md", "rule grade:"): "an excerpt of a rule",
    ("docs/design.md", "Snakefile            includes rules/*.smk, validates the config, targets doubting, eval44b, "
                       "all"): "the layout of the repository",
}


def printed() -> tuple[list[str], list]:
    """The commands in document order (each once) and the blocks that are not shell commands."""
    commands, others = [], []
    for doc in DOCS:
        text = (REPO / doc).read_text(encoding="utf-8")
        for block in code_blocks(doc, text):
            if (doc, block.first) in BLOCKS or block.language not in SHELL_LANGUAGES:
                others.append(block)
            else:
                commands += block_commands(block)
        commands += inline_commands(text)
    return list(dict.fromkeys(commands)), others


def test_every_printed_command_and_block_is_in_the_table():
    commands, others = printed()
    assert sorted(set(commands) - set(COMMANDS)) == [], "printed commands the table does not say how to run"
    assert sorted(set(COMMANDS) - set(commands)) == [], "commands in the table that no document prints"
    assert sorted({(b.doc, b.first) for b in others} - set(BLOCKS)) == [], "code blocks the table does not know"


class ModelsHandler(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server's GET <base_url>/models, all collect_base_urls.sh asks of one."""

    def do_GET(self):  # noqa: N802 (http.server's name)
        body = b'{"object": "list", "data": [{"id": "Qwen2.5-72B-Instruct", "object": "model"}]}'
        self.send_response(200 if self.path.endswith("/v1/models") else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    """A fresh copy with the repository's .venv, the production inputs as placeholders, four servers whose
    URL files the sbatch jobs would have written, and the documents' YAML blocks written out."""
    root = copy_repo(tmp_path_factory.mktemp("printed") / "wf")
    (root / ".venv").symlink_to((REPO / ".venv").resolve())
    production_inputs(root)
    # the production commands plan 3 + 2 query shards here, not 503 + 70: the same rules and files at a
    # hundredth of the planning time (the full plan's job counts: tests/workflow/test_production_config.py)
    production = root / "config/production.yaml"
    text = production.read_text()
    assert text.count(PRODUCTION_SHARDS) == 1, "config/production.yaml's shards line moved: update the test"
    production.write_text(text.replace(PRODUCTION_SHARDS, "shards: {train: 3, dev: 2}"))
    for block in printed()[1]:
        action = BLOCKS[(block.doc, block.first)]
        if isinstance(action, tuple):
            content = yaml.safe_load("\n".join(block.lines))
            target = root / action[1]
            if action[0] == "merge":
                merged = yaml.safe_load(target.read_text())
                for key, value in content.items():
                    merged[key] = {**merged.get(key, {}), **value}
                content = merged
            target.write_text(yaml.safe_dump(content, sort_keys=False))
    own_data_files(root)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ModelsHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    urls = root.parent / "llm_urls"
    urls.mkdir()
    for task in range(4):  # four servers: one each under its own path
        (urls / f"1000_{task}.url").write_text(f"http://127.0.0.1:{server.server_port}/s{task}/v1\n")
    (root.parent / "scratch").mkdir()
    # a build's benchmarks/ folder, for the cost table's command (tests/bench/tiny_benchmarks: three jobs)
    shutil.copytree(root / "tests/bench/tiny_benchmarks", root / "benchmarks")
    for command in SETUP:
        run_shell(as_here(command, root), root)
    try:
        yield root
    finally:
        server.shutdown()


def own_sections(config: dict) -> dict:
    """The sections of OWN_IDENTITY as a config holds them: the Doubting build of its own name, and eval44b."""
    own = config["builds"]["mine"] if "mine" in config.get("builds", {}) else config["builds"]["demo"]
    return {"doubting": own, "eval44b": config["eval44b"]}


def own_data_files(root: Path) -> None:
    """The input files README's my-data.yaml names: copies of the demo's files under the overlay's paths."""
    mine = own_sections(yaml.safe_load((root / "my-data.yaml").read_text()))
    demo = own_sections(yaml.safe_load((root / "config.yaml").read_text()))
    for section, (inputs, _) in OWN_IDENTITY.items():
        for key in inputs:
            target = root / mine[section][key]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / demo[section][key], target)


def test_the_readme_own_data_overlay_plans_both_releases_under_its_own_identity(copy):
    """README's my-data.yaml: a build of its own name beside the demo, every input not the demo's, every key that
    names a release its own, and both releases plan from it (the build itself runs the demo's stages:
    tests/workflow/test_demo_build.py)."""
    overlay = yaml.safe_load((copy / "my-data.yaml").read_text())
    mine = own_sections(overlay)
    for section, (inputs, identity) in OWN_IDENTITY.items():
        assert all(not mine[section][key].startswith("resources/demo/") for key in inputs)
        for key in identity:
            value = mine[section]
            for part in key.split("."):
                value = value.get(part, {})
            # a key the build leaves out defaults from its name (irdata/builds.py), never the demo's
            assert "demo" not in str(value) and (value or section == "doubting"), (section, key)
    out = run_shell("snakemake -n --quiet rules --profile profiles/local --configfile config.yaml my-data.yaml "
                    "my-server.yaml", copy).stdout
    assert all(rule in out for rule in ("validate_msmarco_inputs", "agent_search", "stage_release", "split_papers",
                                        "package_44b", "shard_queries_mine", "shard_queries_demo")), out
    # the overlay's build without its version: the config check names the build and the key
    partial = copy_module.deepcopy(overlay)
    del partial["builds"]["mine"]["version"]
    (copy / "partial.yaml").write_text(yaml.safe_dump(partial))
    proc = subprocess.run(["bash", "-c", "snakemake -n --configfile config.yaml partial.yaml"], cwd=copy,
                          env=activated_env(), capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "  builds.mine: 'version' is required here (in partial.yaml)" in out, out
    assert "repo_id" not in out and len(out.splitlines()) <= 8 and "Traceback" not in out, out


def as_here(command: str, root: Path) -> str:
    """The folders outside the repository that a command names, in the test's folder instead."""
    return (command.replace(SHARED_URLS, str(root.parent / "llm_urls"))
            .replace("/scratch/run1", str(root.parent / "scratch/run1")))


@pytest.mark.parametrize("command", list(COMMANDS), ids=lambda c: c.split("#")[0].strip()[:70])
def test_printed_command_runs(copy, command):
    mode = COMMANDS[command]
    line = as_here(command, copy)
    if mode == RUN:
        run_shell(line, copy)
    elif mode == DRY:
        run_shell(dry(line), copy)
    elif mode in (CHECK, ABSENT):
        for check in scripts_checked(line, copy):
            run_shell(check, copy)
        if mode == CHECK:
            for text, _ in segments(line):
                if text.split()[:1] in (["snakemake"], [".venv/bin/snakemake"]):
                    run_shell(dry(text), copy)
    elif mode == COLLECT:
        run_shell(line.split("#")[0].strip() + " --collect-only -q", copy)
    elif mode == REPORT:
        args = get_argument_parser().parse_args(shlex.split(line)[1:])
        assert args.report and set(args.targets) <= {"all", "doubting", "eval44b"}, args
    else:
        raise AssertionError(f"unknown mode {mode!r}")
    if command.startswith("bash tools/slurm/collect_base_urls.sh"):
        servers = yaml.safe_load((copy / "llm_servers.yaml").read_text())["llm"]
        assert servers["model"] == "Qwen2.5-72B-Instruct" and len(servers["base_urls"]) == 4, servers



def test_the_readme_says_to_activate_the_environment_and_that_makes_the_printed_programs_the_workflows():
    readme = (REPO / "README.md").read_text()
    activate = "source .venv/bin/activate"
    # said once, before the first bare command the README prints
    first_bare = min(readme.index(f"`{word}") for word in ("snakemake ", "python "))
    assert activate in readme[:first_bare]
    venv = Path(activated_env()["VIRTUAL_ENV"])
    proc = subprocess.run(["bash", "-c", f"source {venv}/bin/activate && command -v snakemake python && "
                           "python -c 'import datasets, pyarrow, snakemake'"],
                          env={"PATH": SYSTEM_PATH, "HOME": os.environ.get("HOME", "/root")},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    found = [Path(p).parent.resolve() for p in proc.stdout.split()]
    assert found == [(venv / "bin").resolve()] * 2
