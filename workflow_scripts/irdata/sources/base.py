"""The interface every input source implements (irdata/sources/registry.py says what a source is), the words its
card takes from it, and the release's check of the inputs an input check recorded.

Every method takes the build's `doubting` section (its defaults filled in, irdata/builds.py) or its whole config,
and says nothing of another source's builds: the registry (irdata/sources/registry.py) picks the build's source by
`doubting.source.format`, and nothing outside irdata/sources/ looks at the format itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..heldout import Source, audit_queries, grouped
from ..path_kinds import FILE
from ..provenance import sha256_file

# (config key relative to the doubting section, path, kind of path: irdata.path_kinds FILE, FOLDER or EITHER)
Named = tuple[str, str, str]


@dataclass(frozen=True)
class CardWords:
    """What the dataset card says of a build's source where its ids are the source's own (irdata/doubting/card.py;
    MS MARCO v1 ids are the card's own words)."""

    origin: str  # what the build was made from: "...built by its workflow from <origin>. This is not MS MARCO..."
    dev_set: str  # the dev queries' set: "All N queries of <dev_set>."
    heldout_own: str  # the build's own evaluation queries, held out whether listed or not
    heldout_listed: str  # the key that lists more held-out query files
    join_key: str  # the config key naming the collection the card's join recipe reads
    collection: str  # the collection file the join recipe reads
    queries: list[str]  # the query files the join recipe reads (dev's last)
    files: bool = True  # its inputs are files the join recipe (examples/join_text.py) reads, not datasets of a tool


def listed_paths(key: str, paths, kind: str = FILE) -> list[Named]:
    """(`key[i]`, path, kind) of each path a list-valued key names."""
    return [(f"{key}[{i}]", str(path), kind) for i, path in enumerate(paths)]


def source_heldout_files(doubting: dict) -> list[Source]:
    """The query files a source that holds its own splits out (BEIR, ir_datasets) holds out beside them: the files
    of `source.heldout_queries` in their order, then the audit's queries."""
    listed = doubting["source"]["heldout_queries"]
    return grouped([*((f"source.heldout_queries[{i}]", p) for i, p in enumerate(listed)), *audit_queries(doubting)])


class InputSource:
    """An input format: what a build of it reads, checks and says. A source's module defines one subclass; its
    input check's rule (one per source: rules/common.smk's input_check_rule) runs its own script,
    workflow_scripts/<rule>.py, which imports that module alone (so that another source's code is not part of the
    check's code identity) and runs its run_validate_<format>_inputs."""

    name: str  # doubting.source.format
    env: str = "core"  # the conda env of its input check (envs/<env>.yaml)
    reference_answers: bool  # its dev queries have reference answers (the dev grading's default: irdata/builds.py)
    writes_queries: bool  # its input check writes the train and dev query files (else they are read as named)
    file_keys: tuple[tuple[str, ...], ...] = ()  # the key paths of a doubting section that name its input files or
    #                                              folders (a list value holds several): irdata/workdir.py resolves them

    @property
    def rule(self) -> str:
        """Its input check's rule."""
        return f"validate_{self.name}_inputs"

    def input_paths(self, doubting: dict) -> list[Named]:
        """Every input file or folder it names, with its key: the planning refuses one a job could not read
        (irdata/input_keys.py)."""
        raise NotImplementedError

    def unavailable(self, doubting: dict) -> list[str]:
        """An input other than a path that its check could not read, one line each (`<key>: <what>; <fix>`): the
        planning refuses it beside the paths."""
        return []

    def raw_inputs(self, doubting: dict) -> list[str]:
        """The inputs it reads, each once: files by path, anything else by a name of its own. They are in the input
        check's settings (naming other inputs reruns it) and the release checks them against the check's record
        (check_inputs_current)."""
        raise NotImplementedError

    def rule_inputs(self, doubting: dict) -> dict[str, str | list[str]]:
        """Its input check's named input files."""
        raise NotImplementedError

    def query_files(self, doubting: dict) -> dict[str, str] | None:
        """The train and dev query files later stages read as the config names them, or None where its input check
        writes them (writes_queries)."""
        return None

    def heldout_files(self, doubting: dict) -> list[Source]:
        """The query files it holds out beside its own evaluation queries (irdata/heldout.py)."""
        raise NotImplementedError

    def train_heldout_conflicts(self, doubting: dict, folder: Path, where: str) -> list[str]:
        """`<where><key>: ...` lines of held-out inputs that are its train queries (the same file, id or content),
        found at planning; relative paths from the working `folder`."""
        return []

    def check_settings(self, doubting: dict) -> dict:
        """What its input check reads (the Stage's settings) for a build of this source."""
        raise NotImplementedError

    def settings(self, config: dict) -> dict:
        """Its input check's Stage settings: check_settings for a build of this source; the format alone for
        another's, which this check never runs for (changing its inputs reruns its own check alone)."""
        doubting = config["doubting"]
        if doubting["source"]["format"] != self.name:
            return {"format": doubting["source"]["format"]}
        return self.check_settings(doubting)

    def size_path(self, doubting: dict) -> str | None:
        """A file whose size bounds its collection's without a pass over it (how many encoding jobs the collection
        gets: retrieval.dense.encode_shard_mb), or None where none is known before its input check."""
        raise NotImplementedError

    def train_qrels(self, doubting: dict) -> tuple[str, Iterable[int]]:
        """The train qrels' name and the relevance of each row, read lazily in order (the downstream comparison's
        planning stops at the first positive); no row where they cannot be read here (its input check names why)."""
        raise NotImplementedError

    def other_data(self, ours: dict, theirs: dict, same_file) -> list[str]:
        """The keys of a build's doubting section `ours` (as written, defaults not filled) that make it other data
        than `theirs` (the demo's): its release cannot keep the demo's name (irdata/demo_identity.py).
        `same_file(a, b)`: whether two paths name one file."""
        raise NotImplementedError

    def card_words(self, doubting: dict, corpus: str) -> CardWords:
        """Its words on the card (`corpus`: doubting.corpus_description, which its origin names)."""
        raise NotImplementedError

    def report_splits(self, doubting: dict) -> dict | None:
        """Where its splits' queries come from as the report labels them (irdata/report.py: the folder and each
        split's qrels), or None where they are the source's own train and dev."""
        return None


def qrels_relevances(path, fields: int) -> Iterable[int]:
    """The relevance (last field) of each qrels line of `fields` fields, read lazily; nothing from a missing file
    (the input check names it) and no line of another shape (a header, a malformed line)."""
    if not Path(path).is_file():
        return
    with open(path, "rb") as fh:
        for raw in fh:
            parts = raw.split()
            if len(parts) == fields and parts[-1].lstrip(b"-").isdigit():
                yield int(parts[-1])


def _rebuild(rule: str | None) -> str:
    return (f"To build the release from the inputs the config names, rerun the input check and every stage after it: "
            f"add -R {rule or 'validate_<format>_inputs (the build source.format check)'} to the snakemake command "
            "(or restore the files it was built from).")


def check_inputs_current(report_path, report: dict, named: list[str], rule: str | None = None) -> None:
    """Refuse a release whose work/ was built from other raw inputs than `named`, those the config names now (the
    source's raw_inputs): other inputs, or files whose content changed since the input check `rule` read them.
    inputs.json (`report`) records the inputs it checked (`inputs`; where it has none, the files it read are the
    inputs) and each file it read with its sha256 (`files`)."""
    files = report["files"]
    recorded, named = report.get("inputs", list(files)), list(dict.fromkeys(map(str, named)))
    if set(recorded) != set(named):
        then = ", ".join(p for p in recorded if p not in named)
        now = ", ".join(p for p in named if p not in recorded)
        raise InputError(report_path, f"the work/ outputs were built from other inputs than the config names: "
                         f"checked then {then}; named now {now}. {_rebuild(rule)}", field="files")
    for path, then in files.items():
        if not Path(path).is_file():
            raise InputError(report_path, f"{path}, an input the work/ outputs were built from, is gone. "
                             f"{_rebuild(rule)}", field="files")
        now = {"sha256": sha256_file(path), "bytes": Path(path).stat().st_size}
        if now["sha256"] != then["sha256"]:
            raise InputError(report_path, f"{path} changed since the input check built the work/ outputs from it "
                             f"(sha256 {then['sha256']}, {then['bytes']:,} bytes then; {now['sha256']}, "
                             f"{now['bytes']:,} bytes now). {_rebuild(rule)}", field="files")
