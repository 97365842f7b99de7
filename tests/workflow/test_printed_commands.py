"""Every command that README.md, docs/*.md and the comments of the configs and profiles print is found (fenced
shell blocks, inline code that starts with a program, a comment line that is a command) and run as printed, in a
fresh copy of the repository with the YAML blocks the text shows written to the files they name, in a fresh
login shell with the environment active (printed_commands.run_shell). How each runs follows from the command:

- run for real, as printed: every command that is not a snakemake build (python and bash tools, mkdir), and
  every snakemake command that only plans or reports (-n, --summary, --list-changes, --lint, --unlock,
  --version);
- a snakemake command that would build (minutes to hours) runs twice instead: as a dry-run of exactly the
  printed command plus -n, and for real up to where its jobs would start (tests/snakemake_real_run.py: the
  profiles, the Snakefile and Snakemake's checks of the run's cores and jobs, which a dry-run skips);
- `--report` needs a built release: its arguments parse and its targets are the workflow's;
- pytest: its tests are collected (they run in their own place).

A command that cannot run here at all is in NOT_RUN with the reason; its shell scripts still get `bash -n` and
its snakemake part the two runs above. A printed command that none of these rules takes fails the test.
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
    PROGRAMS,
    SHELL_LANGUAGES,
    SNAKEMAKE,
    SYSTEM_PATH,
    activated_env,
    block_commands,
    code_blocks,
    comment_commands,
    dry,
    inline_commands,
    real_run,
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

# where the commands are printed: the documents (fenced blocks and inline code) and the comments of the configs
# and profiles
DOCUMENTS = DOCS
CONFIGS = ["config.yaml", *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "config").glob("*.yaml")),
           *sorted(p.relative_to(REPO).as_posix() for p in (REPO / "profiles").glob("*/config.yaml"))]

# what cannot run here as printed, and why
NOT_RUN = {
    "bash tools/install.sh && .venv/bin/snakemake --profile profiles/local":
        "installs the environment (network, minutes); the demo build: tests/workflow/test_demo_build.py",
    "bash tools/install.sh": "installs the environment (network, minutes)",
    "bash tools/install.sh        # the workflow's .venv, with snakemake-executor-plugin-slurm==2.8.0 "
    "(requirements.txt)": "installs the environment (network, minutes)",
    "bash tools/test.sh": "runs the whole test suite, this test among them",
    "vllm serve Qwen/Qwen3-8B --port 8000 --enable-auto-tool-choice --tool-call-parser hermes &":
        "needs vLLM and a GPU",
    "sbatch -p gpu -A myproj --array=0-3 tools/slurm/vllm_server.sbatch /shared/models/Qwen2.5-72B-Instruct "
    f"{SHARED_URLS} --tensor-parallel-size 1": "needs a SLURM cluster with GPUs (tests/slurm runs SLURM)",
    "scancel --name irdata-vllm      # when done": "needs a SLURM cluster",
    "sudo bash tools/slurm/start_cluster.sh /var/tmp/irdata-slurm    # installs and starts, ~25-40 s the first "
    "time": "installs and starts a SLURM cluster as root (tests/slurm)",
    "sudo bash tools/slurm/stop_cluster.sh /var/tmp/irdata-slurm [--purge]": "stops that cluster, as root",
    ". /var/tmp/irdata-slurm/env.sh                                   # SLURM_CONF for sinfo/sbatch/sacct":
        "the environment start_cluster.sh writes",
}
# the URL folder and llm_servers.yaml that other commands use: run first, against local servers
SETUP = [
    f"mkdir -p {SHARED_URLS}",
    f"bash tools/slurm/collect_base_urls.sh {SHARED_URLS} --min 4 --wait 1800 --model Qwen2.5-72B-Instruct "
    "> llm_servers.yaml",
]
# snakemake commands that only plan, list or check: run as printed
PLANS_ONLY = {"-n", "--dry-run", "--summary", "--list-changes", "--lint", "--unlock", "--version"}
# code blocks that are not shell commands, by document and first line: YAML written to the file the text
# names, or merged into it; anything else says why it is not run
BLOCKS = {
    ("README.md", "llm:"): ("write", "my-server.yaml"),
    ("README.md", "builds:"): ("write", "my-data.yaml"),
    ("README.md", "retrieval:"): ("write", "ef-search.yaml"),
    ("README.md", "# my-irds.yaml"): "ir_datasets builds: their ids need ir_datasets' cache, which no test downloads "
                                     "(tests/unit/test_sources_ir_datasets.py plans them from a cache it makes)",
    ("README.md", "Snakefile            includes rules/*.smk, validates config.yaml; targets all, doubting, eval44b"):
        "the layout of the repository",
    ("docs/cluster.md", "set-resources:"): ("merge", "profiles/slurm/config.yaml"),
    ("docs/cluster.md", "rule grade:"): "an excerpt of a rule",
    ("docs/design.md", "Snakefile            includes rules/*.smk, validates the config, targets doubting, eval44b, "
                       "all"): "the layout of the repository",
}
# README's BEIR build (section "A BEIR folder as the input"): the YAML block that names a BEIR folder, written to
# the file the text names just before it
BEIR_BLOCK_FILE = "my-beir.yaml"


def how(command: str) -> str:
    """How a printed command runs here (the module's docstring)."""
    if command in NOT_RUN:
        return "not run"
    words = shlex.split(command.split("#")[0])
    if "pytest" in words:
        return "collect"
    if words[0] in SNAKEMAKE:
        if "--report" in words:
            return "report"
        return "run" if PLANS_ONLY & set(words) else "dry-run and real run"
    if words[0] in PROGRAMS or command in SETUP:
        return "run"
    return "unknown"


def is_beir_block(block) -> bool:
    return block.first == "builds:" and "format: beir" in "\n".join(block.lines)


def printed() -> tuple[list[str], list]:
    """The commands in document order (each once) and the blocks that are not shell commands."""
    commands, others = [], []
    for doc in DOCUMENTS:
        text = (REPO / doc).read_text(encoding="utf-8")
        for block in code_blocks(doc, text):
            if (doc, block.first) in BLOCKS or block.language not in SHELL_LANGUAGES:
                others.append(block)
            else:
                commands += block_commands(block)
        commands += inline_commands(text)
    for config in CONFIGS:
        commands += comment_commands((REPO / config).read_text(encoding="utf-8"))
    return list(dict.fromkeys(commands)), others


def test_every_printed_command_runs_here_or_says_why_not():
    commands, others = printed()
    assert [c for c in commands if how(c) == "unknown"] == [], "printed commands with no way to run: add to NOT_RUN"
    assert sorted(set(NOT_RUN) - set(commands)) == [], "NOT_RUN names commands that nothing prints"
    assert sorted({(b.doc, b.first) for b in others if not is_beir_block(b)} - set(BLOCKS)) == [], \
        "code blocks the table does not know"
    # the config comments are read too: the commands they print are among these
    assert "snakemake beir-example --configfile config.yaml config/beir-example.yaml" in commands
    assert "snakemake --profile profiles/slurm msmarco --configfile config.yaml config/production.yaml" in commands


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
        action = ("write", BEIR_BLOCK_FILE) if is_beir_block(block) else BLOCKS[(block.doc, block.first)]
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
    beir_folders(root)
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


def beir_folders(root: Path) -> None:
    """The BEIR folder of README's my-beir.yaml: the workflow's small BEIR example, copied there."""
    for build in yaml.safe_load((root / BEIR_BLOCK_FILE).read_text())["builds"].values():
        shutil.copytree(root / "resources/beir-example", root / build["source"]["folder"])


def checked_parts(command: str, root: Path) -> list[str]:
    """What runs of a command that does not run as printed: its scripts' `bash -n`, its snakemake parts."""
    return [*scripts_checked(command, root),
            *(text.strip() for text, _ in segments(command) if text.split()[:1] in ([w] for w in SNAKEMAKE))]


@pytest.mark.parametrize("command", printed()[0], ids=lambda c: f"{how(c)}: {c.split('#')[0].strip()[:60]}")
def test_printed_command_runs(copy, command):
    mode = how(command)
    line = as_here(command, copy)
    if mode == "run":
        run_shell(line, copy)
    elif mode == "dry-run and real run":
        run_shell(dry(line), copy)
        assert "a real run would start" in run_shell(real_run(line), copy).stdout
    elif mode == "not run":
        for part in checked_parts(line, copy):
            if part.startswith("bash -n"):
                run_shell(part, copy)
            else:
                run_shell(dry(part), copy)
                assert "a real run would start" in run_shell(real_run(part), copy).stdout
    elif mode == "collect":
        run_shell(line.split("#")[0].strip() + " --collect-only -q", copy)
    elif mode == "report":
        args = get_argument_parser().parse_args(shlex.split(line)[1:])
        assert args.report and set(args.targets) <= {"all", "doubting", "eval44b"}, args
    else:
        raise AssertionError(f"{command!r}: no way to run it here")
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
