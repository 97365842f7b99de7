"""The commands a user reads (README.md, docs/*.md, the configs' and profiles' comments, the generated dataset
cards), extracted as printed, and the one way the tests run them, in a fresh shell with the environment active:
tests/workflow/test_printed_commands.py (the repository's documents and configs) and
tests/unit/test_card_commands.py (the cards)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```(\S*)\s*$")
# an inline code span is a command when its first word is one of these programs
PROGRAMS = {"snakemake", ".venv/bin/snakemake", ".venv/bin/python", "python", "bash", "sudo"}
SNAKEMAKE = ("snakemake", ".venv/bin/snakemake")
INLINE = re.compile(r"`([^`\n]+)`")
SHELL_LANGUAGES = {"bash", "sh", "shell", ""}
# a YAML comment line that shows a command: `#` and at least two spaces before a program's name
COMMENT_COMMAND = re.compile(r"^\s*#\s{2,}((?:%s)\s.*?)\s*$" % "|".join(map(re.escape, sorted(PROGRAMS))))
REAL_RUN = Path(__file__).resolve().parent / "snakemake_real_run.py"


@dataclass(frozen=True)
class Block:
    doc: str  # the document's name
    line: int  # 1-based line of the opening fence
    language: str
    lines: tuple[str, ...]

    @property
    def first(self) -> str:
        return next((line for line in self.lines if line.strip()), "")


def code_blocks(doc: str, text: str) -> list[Block]:
    blocks, open_at, language, body = [], None, "", []
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence and open_at is None:
            open_at, language, body = number, fence.group(1), []
        elif fence and line.strip() == "```":
            blocks.append(Block(doc, open_at, language, tuple(body)))
            open_at = None
        elif open_at is not None:
            body.append(line)
    if open_at is not None:
        raise AssertionError(f"{doc}, line {open_at}: code block never closed")
    return blocks


def block_commands(block: Block) -> list[str]:
    """The command lines of a shell block: continuation lines joined, comment-only lines dropped."""
    commands, pending = [], ""
    for line in block.lines:
        if pending:
            line = pending + " " + line.strip()
            pending = ""
        if line.rstrip().endswith("\\"):
            pending = line.rstrip()[:-1].rstrip()
            continue
        if line.strip() and not line.lstrip().startswith("#"):
            commands.append(line.strip())
    return commands


def inline_commands(text: str) -> list[str]:
    """Inline code spans outside code blocks whose first word is a program (PROGRAMS)."""
    prose = re.sub(r"^```.*?^```\s*$", "", text, flags=re.S | re.M)
    return [span.strip() for span in INLINE.findall(prose) if span.split()[0] in PROGRAMS]


def comment_commands(text: str) -> list[str]:
    """The commands a YAML file's comments print: a comment line that is a command (indented under the `#`), and
    inline code spans of comments whose first word is a program."""
    commands = []
    for line in text.splitlines():
        if "#" not in line:
            continue
        shown = COMMENT_COMMAND.match(line)
        if shown:
            commands.append(shown.group(1))
            continue
        comment = line[line.index("#"):]
        commands += [span.strip() for span in INLINE.findall(comment) if span.split()[0] in PROGRAMS]
    return commands


# code blocks of the cards that are not commands: Python that loads the release through `datasets`
# (tests/unit/test_doubting_package.py loads every config offline; test_eval44b_package.py runs the 44b
# card's blocks), and the 44b card's BibTeX
CARD_NOT_COMMANDS = {"python", "bibtex"}


def card_commands(card: Path) -> list[str]:
    """The commands a generated dataset card prints, in order."""
    text = card.read_text(encoding="utf-8")
    commands = [c for block in code_blocks(card.name, text) if block.language not in CARD_NOT_COMMANDS
                for c in block_commands(block)]
    assert all(b.language in SHELL_LANGUAGES | CARD_NOT_COMMANDS for b in code_blocks(card.name, text))
    return commands + inline_commands(text)


def segments(command: str) -> list[tuple[str, str]]:
    """The simple commands of a command line with the operator after each (|, ||, &&, ;, &, or a comment),
    split outside quotes."""
    out, start, quote, i = [], 0, None, 0
    while i < len(command):
        c = command[i]
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or command[i - 1].isspace()):
            out.append((command[start:i], command[i:]))
            return out
        elif c in "|&;":
            op = command[i:i + 2] if command[i:i + 2] in ("||", "&&") else c
            out.append((command[start:i], op))
            i += len(op)
            start = i
            continue
        i += 1
    out.append((command[start:], ""))
    return out


def dry(command: str) -> str:
    """`command` with -n added to every snakemake invocation in it that lacks one (after its last option, so
    that -n is not taken as a file of --configfile)."""
    parts = []
    for text, op in segments(command):
        words = text.split()
        if words and words[0] in SNAKEMAKE and "-n" not in words:
            text = text.rstrip() + " -n" + (" " if op else "")
        parts.append(text + op)
    return "".join(parts)


def real_run(command: str) -> str:
    """`command` with each snakemake invocation run by tests/snakemake_real_run.py: for real, up to where its jobs
    would start (what a dry-run skips: Snakemake's checks of the run's cores and jobs)."""
    parts = []
    for text, op in segments(command):
        words = text.split()
        if words and words[0] in SNAKEMAKE:
            text = text.replace(words[0], f"python {shlex.quote(str(REAL_RUN))}", 1)
        parts.append(text + op)
    return "".join(parts)


def scripts_checked(command: str, root: Path) -> list[str]:
    """`bash -n` of every shell script of the repository the command names (for commands not run here)."""
    return [f"bash -n {shlex.quote(word)}" for word in shlex.split(command, comments=True)
            if word.endswith((".sh", ".sbatch")) and (root / word).is_file()]


# a fresh login shell's PATH: the system's folders only (what a user has before the README's activate line)
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
VENV = Path(sys.executable).parent.parent


def activated_env() -> dict:
    """The environment of a fresh shell after the README's `source .venv/bin/activate`: the system's folders
    and .venv/bin, nothing else the test runner has on PATH."""
    venv_bin = Path(sys.executable).parent
    return dict(os.environ, PATH=f"{venv_bin}{os.pathsep}{SYSTEM_PATH}", VIRTUAL_ENV=str(venv_bin.parent),
                HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")


def run_shell(command: str, cwd: Path, timeout: int = 600, check: bool = True,
              home: Path | None = None) -> subprocess.CompletedProcess:
    """Run a command line as a user would in a new terminal after the README's activate line: a login shell with
    nothing of the test runner's environment but HOME (`env -i HOME=$HOME bash -l`; `home`: another home folder,
    where `~/` goes), the workflow's .venv activated, then the command (a pipeline fails when one of its commands
    does)."""
    script = f"set -o pipefail; source {shlex.quote(str(VENV / 'bin/activate'))} && {command}"
    home = str(home) if home is not None else os.environ.get("HOME", "/root")
    proc = subprocess.run(["bash", "-l", "-c", script], cwd=cwd, env={"HOME": home}, capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"`{command}` in {cwd} exited {proc.returncode}:\n{proc.stdout[-3000:]}\n"
                             f"{proc.stderr[-5000:]}")
    return proc


def assert_folder_is_its_sums(folder: Path) -> None:
    """A release folder holds exactly the files its SHA256SUMS lists (and SHA256SUMS), with those bytes: the
    Doubting card's `sha256sum -c --strict SHA256SUMS`, run as it prints it, passes."""
    listed = {line.split("  ", 1)[1] for line in (folder / "SHA256SUMS").read_text().splitlines()}
    held = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if not p.is_dir()}
    assert held - {"SHA256SUMS"} == listed, (sorted(held - listed - {"SHA256SUMS"}), sorted(listed - held))
    run_shell("sha256sum -c --strict SHA256SUMS", folder)
