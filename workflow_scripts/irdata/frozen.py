"""Release versions at planning, the same for both releases (each Doubting build's and the 44b Eval's), and what a
run published.

Asking is never refused: a dry-run, --summary, --list-changes or --report plans as usual and gets one line per
release that a real run would refuse to build (release_notices):
- its version is frozen: the release ledger records it with another config or other code;
- its release ledger is damaged (irdata/ledger.py);
- its published folder holds another version, and the one to build is recorded as published before: publishing
  it would put an earlier release back in that folder (after a version set with --config, a plain run);
- its published folder holds files its SHA256SUMS does not list (irdata/publish.py planned_swap).
A real run that builds such a release stops before its first job, in Snakemake's onstart (release_stop), naming
the release, what is wrong and the fix (a frozen version: the keys that differ and the command that sets a new
version). The staging rules still check the built content against the ledger (irdata/ledger.py check_ledger), and
the publishing rules check the folder again (irdata/publish.py publish_version). After the run, its last lines say
what it published where, and what it set aside (publication_lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .doubting import stages as doubting_stages
from .doubting.manifest import MANIFEST
from .doubting.release_code import ReleaseCode, doubting_code, planned_code_differences
from .errors import InputError
from .eval44b import stages as eval44b_stages
from .eval44b.release_files import RELEASE_FILES as EVAL44B_FILES
from .eval44b.wiring import CODE as EVAL44B_CODE
from .json_files import read_json
from .ledger import LEDGER_FIX, LedgerError, planned_version_differences, recorded_versions
from .publish import planned_swap
from .sources.registry import source_of
from .stage import canonical

SHOWN_KEYS = 3
EVAL44B = "eval44b"
# the rules of the 44b Eval's jobs: a run with one of them builds that release
EVAL44B_RULES = frozenset(stage.name for stage in eval44b_stages.STAGES)
# the rules that publish a release (their output: the publication's record, publish_version's)
PUBLISH_RULES = frozenset({"package", "publish_44b"})
FROZEN, LEDGER, SWAP = "frozen", "ledger", "swap"
HEADERS = {FROZEN: "Frozen release versions: this run would build other content under a published version.",
           LEDGER: "Damaged release ledgers: this run could neither check nor record its versions.",
           SWAP: "Published release folders: this run would publish over them what they must not lose."}


@dataclass(frozen=True)
class Release:
    """A release the workflow builds: its version, where it is recorded and published, and what it is frozen with."""

    key: str  # the Doubting build's name, or EVAL44B
    label: str  # how the messages name it
    version: str
    version_key: str  # the config key that sets its version
    ledger: str
    folder: str  # where it is published
    manifest: str  # its manifest's file name, which records its version
    config: dict  # the config its manifest records, canonical: what its version is frozen with
    code: ReleaseCode  # the files that are its code, which its version is frozen with too

    def override(self, version: str) -> str:
        """The --config item that sets `version`, as Snakemake parses it (YAML after `=`, merged into the config)."""
        head, *rest = self.version_key.split(".")
        value = version
        for part in reversed(rest):
            value = f"{{{part}: {value}}}"
        return f"{head}={value}"

    def overlay_line(self) -> str:
        return self.override("...").replace("=", ": ", 1)


def doubting_release(name: str, config: dict) -> Release:
    """The release of the Doubting build `name` (its whole config, irdata/builds.py)."""
    doubting = config["doubting"]
    return Release(name, f"build {name}", doubting["version"], doubting_stages.version_key(config),
                   doubting["release_ledger"], doubting["package_dir"], MANIFEST,
                   canonical(doubting_stages.config_used(config)), doubting_code(source_of(doubting).rule))


def eval44b_release(config: dict) -> Release:
    e44 = config["eval44b"]
    return Release(EVAL44B, "44b Eval", e44["version"], eval44b_stages.VERSION_KEY, e44["release_ledger"],
                   e44["release"], EVAL44B_FILES["manifest"], canonical(eval44b_stages.config_used(config)),
                   EVAL44B_CODE)


def job_release(rule: str, wildcards: dict) -> str | None:
    """The key of the release a job builds: its Doubting build's (the {build} wildcard), the 44b Eval's (a rule of
    its stages), or None (an index, a report)."""
    return wildcards.get("build") or (EVAL44B if rule in EVAL44B_RULES else None)


def next_version(version: str) -> str:
    """A version after `version`: its last number plus one, or `-2` appended."""
    head = version.rstrip("0123456789")
    tail = version[len(head):]
    return f"{head}{int(tail) + 1}" if tail else f"{version}-2"


def suggested_version(release: Release, recorded) -> str:
    """The first version after the release's that the ledger does not record (`recorded`) and that names no
    release set aside beside its folder."""
    version = next_version(release.version)
    folder = Path(release.folder)
    while version in recorded or folder.with_name(f"{folder.name}@{version}").exists():
        version = next_version(version)
    return version


@dataclass(frozen=True)
class ReleaseProblem:
    release: Release
    kind: str  # FROZEN, LEDGER, SWAP
    problem: str  # what is wrong; for FROZEN the differing config keys and `code: <file>`s, shown
    fix: str

    def notice(self) -> str:
        """One line, for a planning that runs nothing."""
        r = self.release
        if self.kind == FROZEN:
            return (f"{r.label}: version {r.version} is frozen and {self.problem} changed; a real run that builds it "
                    f"would stop; set {r.version_key} (e.g. {self.fix}, or an overlay line)")
        return f"{r.label}: {self.problem}; a real run that builds it would stop; {self.fix}"

    def stop(self) -> list[str]:
        """Why a real run stops, and the fix."""
        r = self.release
        if self.kind == FROZEN:
            return [f"  {r.label}: version {r.version} (release ledger {r.ledger}) was built with other values of "
                    f"{self.problem}.",
                    f"    Set a new version: add {self.fix} to the command, or `{r.overlay_line()}` to your overlay."]
        return [f"  {r.label}: {self.problem}.", f"    {self.fix[0].upper()}{self.fix[1:]}."]


def _shown(keys: list[str]) -> str:
    more = f" and {len(keys) - SHOWN_KEYS} more" if len(keys) > SHOWN_KEYS else ""
    return ", ".join(keys[:SHOWN_KEYS]) + more


def release_problems(releases: list[Release], code_root) -> list[ReleaseProblem]:
    """What a real run that builds each release would refuse (see the module's docstring); `code_root`: the
    workflow folder, which the code files the ledger records are relative to."""
    problems = []
    for r in releases:
        try:
            recorded = recorded_versions(r.ledger)
        except LedgerError as error:
            problems.append(ReleaseProblem(r, LEDGER, f"the release ledger {r.ledger} is damaged ({error.what})",
                                           LEDGER_FIX))
            continue
        keys = [key for key, _, _ in planned_version_differences(r.ledger, r.version, r.config)]
        keys += [f"code: {rel}" for rel in planned_code_differences(r.ledger, r.version, code_root, r.code)]
        if keys:
            problems.append(ReleaseProblem(r, FROZEN, _shown(keys),
                                           f"--config '{r.override(suggested_version(r, recorded))}'"))
        try:
            swap = planned_swap(r.folder, r.version, recorded, r.manifest)
        except InputError as error:  # a published SHA256SUMS that is not one
            problems.append(ReleaseProblem(r, SWAP, str(error), f"repair or move away {r.folder}"))
            continue
        if swap.going_back:
            problems.append(ReleaseProblem(
                r, SWAP, f"{r.folder} holds release {swap.held}, and this run would put {r.version}, which its "
                f"ledger records as published before, back in its place",
                f"to build {swap.held}, run with the config it was built with (--config '{r.override(swap.held)}' "
                f"and its overlays); to publish {r.version} there again, move {r.folder} away first"))
        if swap.unlisted:
            problems.append(ReleaseProblem(r, SWAP, swap.unlisted_problem(r.folder), swap.unlisted_fix(r.folder)))
    return problems


def release_notices(problems: list[ReleaseProblem]) -> list[str]:
    return [problem.notice() for problem in problems]


def release_stop(problems: list[ReleaseProblem]) -> str:
    """Why a real run stops before its first job: per kind of problem, each release's, with its fix."""
    lines = []
    for kind, header in HEADERS.items():
        found = [problem for problem in problems if problem.kind == kind]
        if found:
            lines += [header, *(line for problem in found for line in problem.stop())]
    return "\n".join(lines)


def publication_lines(published: list[tuple[str, str]]) -> list[str]:
    """What a run published, for its last lines: per (release label, the publishing job's record)."""
    lines = []
    for label, record_path in published:
        record = read_json(record_path)
        version, folder, before = record["version"], record["package"], record.get("before")
        if before is None:
            lines.append(f"{label}: published release {version} at {folder}.")
        elif before == version:
            lines.append(f"{label}: published release {version} at {folder} again, the content its ledger records.")
        else:
            lines.append(f"{label}: published release {version} at {folder}; release {before}, published there "
                         f"before, is kept at {record['set_aside']}.")
    return lines
