"""The files and folders a config names as inputs, each with the config key that names it, so that a missing
one is refused at planning in one line per file that names the key to fix, before Snakemake would name only
the file (in a MissingInputException of some rule).
"""

from __future__ import annotations

from pathlib import Path

from .beir_inputs import beir_paths
from .msmarco_inputs import RAW_FILE_KEYS


def _listed(key: str, paths) -> list[tuple[str, str]]:
    return [(f"{key}[{i}]", str(path)) for i, path in enumerate(paths)]


def _beir_folder(key: str, folder: str, splits: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The folder's corpus and queries under `key`, and each (split key, split)'s qrels file under its key."""
    files = [beir_paths(folder, split) for _, split in splits]
    return ([(key, str(files[0][name])) for name in ("corpus", "queries")]
            + [(split_key, str(paths["qrels"])) for (split_key, _), paths in zip(splits, files)])


def doubting_input_paths(doubting: dict) -> list[tuple[str, str]]:
    """(key relative to the Doubting section, path) of every input file it names: its source's files, the
    audit's qrels, queries, runs (a folder stands for its files) and filled sheets, and the downstream
    comparison's BEIR evaluation sets."""
    source = doubting["source"]
    if source["format"] == "beir":
        out = _beir_folder("source.folder", source["folder"],
                           [("source.train_split", source["train_split"]), ("source.dev_split", source["dev_split"])])
        out += _listed("source.heldout_queries", source["heldout_queries"])
    else:
        out = [(key, doubting[key]) for key in RAW_FILE_KEYS] + _listed("heldout_queries", doubting["heldout_queries"])
    audit = doubting["audit"]
    out += [(f"audit.{key}", audit[key]) for key in ("qrels", "queries") if audit[key]]
    out += _listed("audit.runs", audit["runs"]) + _listed("audit.human.sheets", audit["human"]["sheets"])
    downstream = doubting["downstream"]
    if downstream["enabled"]:
        for i, spec in enumerate(downstream["eval_sets"]):
            key = f"downstream.eval_sets[{i}]"
            out += _beir_folder(f"{key}.path", spec["path"], [(f"{key}.split", spec["split"])])
    return out


def eval44b_input_paths(eval44b: dict) -> list[tuple[str, str]]:
    """(key relative to the eval44b section, path) of its input files."""
    return [(key, eval44b[key]) for key in ("papers", "reviews")]


def missing_input_lines(section: str, named: list[tuple[str, str]], folder: Path) -> list[str]:
    """One line per named path that does not exist (relative paths from the working `folder`):
    `section.key: path: no such file or folder`."""
    return [f"{section}.{key}: {path}: no such file or folder" for key, path in named
            if not (folder / path).exists()]


def missing_inputs(builds: dict[str, dict], config: dict, folder: Path) -> list[str]:
    """A line per input of a declared build or of 44b Eval that does not exist, named by its key (a build's
    under builds.<name>, where its own value goes)."""
    lines = [line for name, built in builds.items()
             for line in missing_input_lines(f"builds.{name}", doubting_input_paths(built["doubting"]), folder)]
    return lines + missing_input_lines("eval44b", eval44b_input_paths(config["eval44b"]), folder)
