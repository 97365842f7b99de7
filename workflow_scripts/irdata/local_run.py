"""The machine settings of a run on this machine that names none: a bare `snakemake <target>` runs as with
`--profile profiles/local`.

Snakemake asks a local run for --cores, and takes a global resource no one sets as unlimited. A run that names
neither --cores nor --jobs (nor a profile that does) gets profiles/local's `cores`, and every global resource of
profiles/local's `resources` (llm_slots: the LLM jobs at once) that the run does not set. A cluster run (--jobs,
as profiles/slurm sets) is left as it is: its jobs' threads are not capped at this machine's cores. (Not a workflow
profile: profiles/default's keys would win over profiles/slurm's.)
"""

from __future__ import annotations

from pathlib import Path

import yaml


def local_defaults(profile, cores, nodes, resources) -> tuple[int | None, dict]:
    """(the cores to set or None, {resource: value} to add) for a run with `cores` and `nodes` (--jobs) as given
    (None: not given) and the global `resources` it names; `profile`: profiles/local's config.yaml."""
    if nodes is not None:
        return None, {}
    local = yaml.safe_load(Path(profile).read_text(encoding="utf-8")) or {}
    added = {name: value for name, value in (local.get("resources") or {}).items() if name not in resources}
    if cores is not None:
        return None, added
    return _cores(local.get("cores", "all")), added


def _cores(value) -> int:
    if value == "all":
        from snakemake.utils import available_cpu_count

        return available_cpu_count()
    return int(value)
