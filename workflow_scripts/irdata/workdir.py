"""The workflow folder and the working folder (`snakemake -d DIR`): code, prompts, schemas and the demo's
resources are the workflow's; outputs, and the input files a user's config names, are the working folder's.

Rules name every file relative to the working folder (Snakemake's convention), so a file of the workflow
folder is named relative to the working folder when it lies inside it (the usual run, from the repository:
`prompts/grade_query_only.txt`, as before) and by its absolute path otherwise.
"""

from __future__ import annotations

import os
from pathlib import Path

from .sources.registry import file_keys

# the config's input files and folders, as key paths (a list value holds several): a build's source's are those of
# every source (irdata/sources/), whichever it reads
CONFIG_INPUTS = (
    *(("doubting", *key) for key in file_keys()),
    ("doubting", "audit", "qrels"),
    ("doubting", "audit", "queries"),
    ("doubting", "audit", "runs"),
    ("doubting", "audit", "human", "sheets"),
    ("eval44b", "papers"),
    ("eval44b", "reviews"),
)


def workflow_file(path, basedir, workdir=None) -> str:
    """`path` (relative to the workflow folder `basedir`) as rules in the working folder name it."""
    target = Path(os.path.abspath(os.path.join(basedir, path)))
    here = Path(os.path.abspath(workdir or os.getcwd()))
    try:
        return target.relative_to(here).as_posix()
    except ValueError:
        return target.as_posix()


def input_file(path, basedir, workdir=None):
    """A config's input path: relative to the working folder, unless it is only found in the workflow
    folder (the demo's resources/demo/ files, when the working folder is elsewhere)."""
    if path is None or os.path.isabs(path):
        return path
    here = workdir or os.getcwd()
    if os.path.exists(os.path.join(here, path)) or not os.path.exists(os.path.join(basedir, path)):
        return path  # a missing file keeps the working folder's name, which its input check reports
    return workflow_file(path, basedir, here)


def resolve_config_inputs(config: dict, basedir, workdir=None) -> None:
    """Rewrite the config's input paths in place with input_file (nothing changes for a run from the
    workflow folder itself)."""
    for *parents, key in CONFIG_INPUTS:  # the builds' shared defaults name no input file (irdata/builds.py)
        part = config
        for name in parents:
            part = part.get(name) or {}
        if key in part:
            part[key] = ([input_file(p, basedir, workdir) for p in part[key]] if isinstance(part[key], list)
                         else input_file(part[key], basedir, workdir))
