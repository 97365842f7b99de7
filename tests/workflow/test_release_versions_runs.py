"""Every release is versioned alike, through Snakemake (dry-runs, and real runs that stop before their first job): the
44b Eval's frozen version as a Doubting build's, a damaged release ledger answered at planning and refused by a
real run, an earlier version that would come back over a later one and a user's files in a published folder. The
functions behind them: tests/unit/test_release_versions.py, test_publish.py."""

import json

import pytest
import yaml

from demo_config import workflow_builds
from irdata.frozen import eval44b_release
from irdata.provenance import sha256sums_text
from workflow.test_targets import frozen_ledger

pytestmark = pytest.mark.workflow

LEDGER_44B = "work/eval44b-release-ledger.json"
DEMO_LEDGER = "work/doubting-release-ledger.json"
PACKAGE = "results/doubting-ms-marco"
ASKING = [("-n",), ("--summary",), ("--list-changes", "input")]


def out_of(proc) -> str:
    return proc.stdout + proc.stderr


def stopped(proc, header: str) -> list[str]:
    """The lines a real run stopped with, from `header` on, after checking it ran no job and printed no traceback
    (Snakemake names the onstart handler the error came from, in a last line)."""
    out = out_of(proc)
    assert proc.returncode != 0 and "Finished jobid" not in out and "Traceback" not in out, out[-3000:]
    lines = out[out.index(header):].strip().splitlines()
    assert lines[-1].strip().startswith('File "') and lines[-1].endswith("in __onstart"), lines
    return lines[:-1]


def the_44b_recorded_with(workflow, **retrieval_dense) -> None:
    """The 44b Eval's v0.1-demo in its ledger, built with config.yaml but `retrieval_dense` (as after a build with
    another setting)."""
    config = yaml.safe_load((workflow.root / "config.yaml").read_text())
    workflow_builds(config)  # fills in every section's defaults, as the workflow does
    config["retrieval"]["dense"].update(retrieval_dense)
    release = eval44b_release(config)
    ledger = workflow.root / LEDGER_44B
    ledger.parent.mkdir(parents=True, exist_ok=True)
    entry = {"sha256sums_sha256": "ab" * 32, "package": "results/44b-eval", "config": release.config}
    ledger.write_text(json.dumps({"releases": {"v0.1-demo": entry}}))


@pytest.mark.parametrize("asking", ASKING)
def test_asking_is_never_refused_by_a_frozen_44b_version(workflow, asking):
    # the dense search setting the 44b miners and arms read: the README's ef-search.yaml after a build
    the_44b_recorded_with(workflow, ef_search=200)
    notice = [line for line in out_of(workflow.snakemake("eval44b", *asking)).splitlines() if "is frozen" in line]
    assert notice == ["44b Eval: version v0.1-demo is frozen and retrieval.dense.ef_search changed; a real run that "
                      "builds it would stop; set eval44b.version (e.g. --config 'eval44b={version: v0.1-demo-2}', or "
                      "an overlay line)"]
    fixed = workflow.snakemake("eval44b", *asking, "--config", "eval44b={version: v0.1-demo-2}")
    assert "is frozen" not in out_of(fixed)


def test_a_real_run_under_a_frozen_44b_version_stops_before_its_first_job(workflow):
    the_44b_recorded_with(workflow, ef_search=200)
    lines = stopped(workflow.snakemake("eval44b", "--cores", "1", check=False), "Frozen release versions")
    assert lines[1:] == [
        f"  44b Eval: version v0.1-demo (release ledger {LEDGER_44B}) was built with other values of "
        "retrieval.dense.ef_search.",
        "    Set a new version: add --config 'eval44b={version: v0.1-demo-2}' to the command, or `eval44b: {version: "
        "...}` to your overlay."]
    assert not (workflow.root / "work/eval44b/split.json").exists()


def test_a_damaged_ledger_is_one_line_of_asking_and_stops_a_real_run_that_builds_its_release(workflow):
    ledger = workflow.root / LEDGER_44B
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_bytes(b"{}")
    frozen_ledger(workflow)  # the demo's version frozen with another config, in its own ledger
    for asking in ASKING:
        proc = workflow.snakemake(*asking)
        damaged = [line for line in out_of(proc).splitlines() if line.startswith("44b Eval:")]
        assert damaged == [
            f"44b Eval: the release ledger {LEDGER_44B} is damaged (no `releases`); a real run that builds it would "
            'stop; restore it from your backup (it is JSON: {"releases": {"<version>": {"sha256sums_sha256": ..., '
            '"package": ...}}}), or remove it to forget every version it froze'], asking
    # a real run of the demo alone stops for the demo's frozen version, not for the 44b's ledger
    demo = stopped(workflow.snakemake("demo", "--cores", "1", check=False), "Frozen release versions")
    assert len(demo) == 3 and "eval44b" not in "\n".join(demo)
    lines = stopped(workflow.snakemake("eval44b", "--cores", "1", check=False), "Damaged release ledgers")
    assert lines[1:] == [f"  44b Eval: the release ledger {LEDGER_44B} is damaged (no `releases`).",
                         '    Restore it from your backup (it is JSON: {"releases": {"<version>": '
                         '{"sha256sums_sha256": ..., "package": ...}}}), or remove it to forget every version it '
                         'froze.']
    assert ledger.read_bytes() == b"{}" and not (workflow.root / "work/eval44b/split.json").exists()


@pytest.mark.parametrize("data, what", [
    (b"", "the file is empty"),
    (b"[]", "a list, not an object with `releases`"),
    (b'{"releases": {"v0.1-demo": {"sha256sums', "not JSON (Unterminated string starting at, line 1, column 29, the "
                                                "file ends inside it)"),
    (b'{"releases": {"v0.1-demo": {"package": "results/doubting-ms-marco"}}}',
     "`releases.v0.1-demo` has no `sha256sums_sha256`"),
])
def test_every_damaged_form_is_named_in_a_dry_run(workflow, data, what):
    (workflow.root / DEMO_LEDGER).parent.mkdir(parents=True, exist_ok=True)
    (workflow.root / DEMO_LEDGER).write_bytes(data)
    damaged = [line for line in out_of(workflow.snakemake("-n")).splitlines() if line.startswith("build demo:")]
    assert len(damaged) == 1 and damaged[0].startswith(f"build demo: the release ledger {DEMO_LEDGER} is damaged "
                                                       f"({what}); a real run that builds it would stop"), damaged


def test_a_ledger_saved_with_a_byte_order_mark_is_read(workflow):
    frozen_ledger(workflow)
    path = workflow.root / DEMO_LEDGER
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    out = out_of(workflow.snakemake("demo", "-n"))
    assert "is damaged" not in out and "build demo: version v0.1-demo is frozen and queries changed" in out


def test_a_published_folder_that_would_lose_a_later_version_or_a_users_files_stops_a_real_run(workflow):
    """After `--config 'builds={demo: {version: v0.2-demo}}'` published v0.2-demo, a plain run on config.yaml's
    v0.1-demo (recorded before, with this config) would put it back; a file of the user's is in the folder."""
    frozen_ledger(workflow)
    path = workflow.root / DEMO_LEDGER
    ledger = json.loads(path.read_text())
    recorded = ledger["releases"]["v0.1-demo"]
    recorded["config"]["queries"] = "sample"  # config.yaml's: v0.1-demo itself is not frozen
    ledger["releases"]["v0.2-demo"] = dict(recorded)
    path.write_text(json.dumps(ledger))
    folder = workflow.root / PACKAGE
    folder.mkdir(parents=True)
    (folder / "MANIFEST.json").write_text(json.dumps({"version": "v0.2-demo"}))
    (folder / "SHA256SUMS").write_text(sha256sums_text(folder, ["MANIFEST.json"]))
    (folder / "my-notes.txt").write_text("mine")
    notices = [line for line in out_of(workflow.snakemake("demo", "-n")).splitlines() if line.startswith("build demo")]
    assert notices == [
        f"build demo: {PACKAGE} holds release v0.2-demo, and this run would put v0.1-demo, which its ledger records "
        "as published before, back in its place; a real run that builds it would stop; to build v0.2-demo, run with "
        "the config it was built with (--config 'builds={demo: {version: v0.2-demo}}' and its overlays); to publish "
        f"v0.1-demo there again, move {PACKAGE} away first",
        f"build demo: {PACKAGE} holds files its SHA256SUMS does not list: my-notes.txt; a real run that builds it "
        "would stop; a release folder holds exactly what its SHA256SUMS lists, and publishing would move them aside "
        f"with release v0.2-demo or drop them: move them out of {PACKAGE}, then run again"]
    lines = stopped(workflow.snakemake("demo", "--cores", "1", check=False), "Published release folders")
    assert len(lines) == 5 and "v0.2-demo" in lines[1] and "my-notes.txt" in lines[3]
    assert sorted(p.name for p in folder.iterdir()) == ["MANIFEST.json", "SHA256SUMS", "my-notes.txt"]
    assert not (workflow.root / "work/doubting/demo").exists()
