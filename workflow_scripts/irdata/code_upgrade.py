"""The upgrade of a checkout built before code identities (irdata/code_identity.py): its jobs learn their new `code`
param without running again, and a job whose code really changed still reruns.

Snakemake records the params of each job it ran (with the file backend, one JSON record per output file under
.snakemake/metadata/: `params`, the sorted `repr` of each param's value) and, with the `params` rerun trigger, reruns a
job whose params now differ from the recorded ones. A job built before carries the old scheme's `code`
(irdata.provenance.code_hash: the bytes of its script, the modules it imports, their templates and its prompts, with
their paths). For every output of every planned job, the upgrade records the new identity only where the recorded
params differ from the job's params now in that one value, and the recorded value is the old scheme's hash of the
files as they are now: the job was built from these very bytes. Every other record is left as it is, so Snakemake
reruns exactly the jobs it would have rerun before: a job whose code, prompts or settings changed since it ran.

It plans and writes through Snakemake's own objects (its DAG, its record store and serializer of params), which are
internals of the pinned Snakemake (requirements.txt): tests/workflow/test_demo_build.py upgrades a real build.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .provenance import code_hash

UPGRADED, CURRENT, RERUN, NOT_BUILT = "upgraded", "current", "left to rerun", "not built"


def upgraded_params(recorded: list[str], current: list[str], identity: str, old_hashes: set[str]) -> list[str] | None:
    """The params to record for a job (Snakemake's serialized values, `repr`s) whose recorded params are `recorded` and
    whose params now are `current`, when the one difference is its code param: recorded as one of `old_hashes` (the
    old scheme's hashes of its files now), now `identity`; None when anything else differs."""
    only_recorded, only_current = set(recorded) - set(current), set(current) - set(recorded)
    if only_current == {repr(identity)} and len(only_recorded) == 1 and only_recorded <= {repr(h) for h in old_hashes}:
        return sorted(current)
    return None


def upgrade_jobs(jobs, persistence, code_sources, basedir) -> dict[str, Counter]:
    """Record the new code identity of every job of `jobs` (Snakemake's planned jobs) that upgraded_params allows, in
    `persistence` (Snakemake's record store); `code_sources(identity)`: the (script, prompts) this planning found to
    have that identity (irdata.stage_registry.StageWiring.code_sources). Returns, per outcome, the jobs by rule."""
    outcomes: dict[str, Counter] = {name: Counter() for name in (UPGRADED, CURRENT, RERUN, NOT_BUILT)}
    for job in jobs:
        if not hasattr(job.params, "code"):  # a target rule
            continue
        identity = job.params.code
        old_hashes = {code_hash(script, basedir, prompts=list(prompts)) for script, prompts in code_sources(identity)}
        current = persistence._params(job)
        states = set()
        for output in job.output:
            record = persistence.metadata(output)
            if record is None or record.params is None or (record.record_format_version or 0) < 6:
                states.add(NOT_BUILT)
            elif set(record.params) == set(current):
                states.add(CURRENT)
            elif (params := upgraded_params(record.params, current, identity, old_hashes)) is None:
                states.add(RERUN)
            else:
                record.params = params
                persistence._write_record(persistence._get_key(output), record)
                states.add(UPGRADED)
        outcome = next(state for state in (RERUN, NOT_BUILT, UPGRADED, CURRENT) if state in states)
        outcomes[outcome][job.rule.name] += 1
    persistence._clear_cache()
    return outcomes


def upgrade_checkout(snakefile, workdir, configfiles, targets) -> dict[str, Counter]:
    """Plan `snakefile`'s workflow in the working folder `workdir` (with `configfiles`, for `targets` or its default
    target) through Snakemake's API, as `snakemake -n` would, and upgrade the records of its jobs (upgrade_jobs),
    holding Snakemake's lock on the folder (a run in progress there stops the upgrade)."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, DAGSettings, OutputSettings, ResourceSettings

    workdir, configfiles = Path(workdir).resolve(), [Path(c).resolve() for c in configfiles]
    with SnakemakeApi(OutputSettings()) as api:
        workflow_api = api.workflow(resource_settings=ResourceSettings(cores=1), snakefile=Path(snakefile),
                                    config_settings=ConfigSettings(configfiles=configfiles), workdir=workdir)
        dag_api = workflow_api.dag(DAGSettings(targets=set(targets)))
        workflow = dag_api.workflow_api._workflow
        workflow.dag_settings = dag_api.dag_settings
        workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=False)
        workflow._build_dag()
        stage = workflow.globals["STAGE"]
        with workflow.persistence.lock():
            return upgrade_jobs(workflow.dag.jobs, workflow.persistence, stage.code_sources, workflow.basedir)


def summary(outcomes: dict[str, Counter]) -> str:
    """One line per outcome: how many jobs, and by rule those left to rerun."""
    lines = []
    for outcome, rules in outcomes.items():
        line = f"{sum(rules.values())} jobs {outcome}"
        if outcome == RERUN and rules:
            line += " (their code, prompts or settings changed since they ran): " + ", ".join(
                f"{rule} {count}" for rule, count in sorted(rules.items()))
        lines.append(line)
    return "\n".join(lines)
