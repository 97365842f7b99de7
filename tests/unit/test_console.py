"""What a build prints (irdata/console.py, irdata/logs.py, irdata/retrieval/faiss_lib.py) and the settings a run
without a profile gets (irdata/local_run.py): Snakemake's records as its own formatter prints them, rewritten;
rule scripts run in a subprocess as Snakemake runs them."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from snakemake.logging import DefaultFormatter
from snakemake.persistence import ParamsChange
from snakemake_interface_logger_plugins.common import LogEvent

from irdata import console
from irdata.local_run import local_defaults

REPO = Path(__file__).resolve().parents[2]
PARAMS = "Params have changed since last execution"


def params_reason(before: list, now: list) -> str:
    """A job's reason as Snakemake words a change of its params (the reprs it stores of each param)."""
    change = ParamsChange(only_old={repr(v) for v in before}, only_new={repr(v) for v in now}, files={"out.txt"})
    return f"{PARAMS}: {change}"


SETTINGS = {"llm": {"model": "m", "temperature": 0.0}, "budget": {"max_turns": 3, "note": "a; b now: c"}}


def test_a_changed_setting_is_named_with_its_old_and_new_value_not_both_dicts():
    changed = json.loads(json.dumps(SETTINGS))
    changed["budget"]["max_turns"] = 4
    reason = params_reason([SETTINGS], [changed])
    assert len(reason) > 150
    assert console.short_reason(reason) == f"{PARAMS}: settings budget.max_turns: 3 -> 4"


def test_a_changed_code_hash_says_code_and_several_changes_are_counted():
    changed = {"llm": {"model": "n", "temperature": 0.5}, "budget": {"max_turns": 5, "note": "x", "new": 1}}
    reason = params_reason([SETTINGS, "ab" * 32], [changed, "cd" * 32])
    assert console.short_reason(reason) == (
        f"{PARAMS}: settings budget.max_turns: 3 -> 5, budget.new: '<unset>' -> 1, budget.note: 'a; b now: c' -> 'x'"
        " and 2 more; code")
    assert console.short_reason(params_reason(["ab" * 32], ["cd" * 32])) == f"{PARAMS}: code"
    assert console.short_reason(params_reason([1], [2])) == f"{PARAMS}: other params 1 -> 2"
    # a text that is not Snakemake's before/now form is kept as it is
    assert console.short_reason(f"{PARAMS}: something else") == f"{PARAMS}: something else"


def test_file_lists_are_cut_in_a_real_run_and_kept_in_a_dry_run():
    reason = "Missing output files: a, b, c, d; Updated input files: prompts/grade.txt"
    assert console.short_reason(reason, files=2) == (
        "Missing output files: a, b and 2 more; Updated input files: prompts/grade.txt")
    assert console.short_reason(reason) == reason


def record(event, **fields) -> logging.LogRecord:
    return logging.makeLogRecord({"msg": fields.pop("msg", "m"), "levelno": logging.INFO, "levelname": "INFO",
                                  "event": event, **fields})


JOB = dict(jobid=7, rule_msg=None, rule_name="grade", local=True, is_checkpoint=False, input=["in/a.txt"],
           output=["out/b.txt"], log=["logs/grade/demo.log"], benchmark="benchmarks/grade/demo.tsv",
           wildcards={"build": "demo"}, reason="Missing output files: out/b.txt", resources={"mem_mb": 1000},
           priority=0, threads=1, indent=False, shellcmd=None)


def formatted(event, dryrun=False, **fields) -> str:
    formatter = console.ConsoleFormatter(DefaultFormatter(), dryrun, ["all", "doubting"], ["demo", "beir-example"])
    return formatter.format(record(event, **fields))


def test_a_job_in_a_real_run_is_its_rule_wildcards_log_and_reason_and_a_dry_run_keeps_its_files():
    real = formatted(LogEvent.JOB_INFO, **JOB)
    assert "localrule grade:" in real and "log: logs/grade/demo.log" in real and "wildcards: build=demo" in real
    assert "reason: Missing output files: out/b.txt" in real
    assert not any(word in real for word in ("input:", "output:", "benchmark:", "resources:"))
    dry = formatted(LogEvent.JOB_INFO, dryrun=True, **JOB)
    assert "input: in/a.txt" in dry and "output: out/b.txt" in dry and "resources: mem_mb=1000" in dry


def test_a_failed_job_says_no_message_none_and_a_reported_script_error_is_not_repeated():
    error = dict(JOB, msg="Error in rule grade, jobid: 7", aux={}, conda_env=None)
    text = formatted(LogEvent.JOB_ERROR, **error)
    assert "Error in rule grade:" in text and "log: logs/grade/demo.log" in text
    assert "message: None" not in text and "input:" not in text
    assert "message: Grading the dev split" in formatted(LogEvent.JOB_ERROR, **dict(error, rule_msg="Grading the "
                                                                                        "dev split"))
    reported = ("RuleException:\nCalledProcessError in file \"/w/rules/annotate.smk\", line 58:\nCommand 'set -euo "
                "pipefail;  /v/bin/python /w/.snakemake/scripts/tmpa1b2.grade.py' returned non-zero exit status 1.")
    assert formatted(LogEvent.ERROR, msg=reported, exception="RuleException") == ""
    killed = reported.replace("exit status 1.", "exit status 137.")
    assert formatted(LogEvent.ERROR, msg=killed, exception="RuleException") == killed
    assert formatted(LogEvent.SHELLCMD, msg="Shell command: None", shellcmd=None) == ""


def test_a_mistyped_target_is_answered_with_the_targets_and_the_closest():
    message = "MissingRuleException:\nNo rule to produce dmeo (if you use input functions ...)."
    text = formatted(LogEvent.ERROR, msg=message, exception="MissingRuleException")
    assert text.startswith(message)
    assert "The targets: all, doubting; the builds (each a target): demo, beir-example" in text
    assert text.endswith("Did you mean `demo`?")


SCRIPT = """
import logging, os, sys
from types import SimpleNamespace
from irdata.logs import CONSOLE, rule_logging
snakemake = SimpleNamespace(log=[sys.argv[1]], rule="grade")
with rule_logging(snakemake) as log:
    log.info("details")
    log.info("for the console", extra=CONSOLE)
    log.warning("a warning")
    print("a progress bar", file=sys.stderr)
    {body}
"""


def run_rule_script(tmp_path, body: str, traceback: bool = False) -> tuple[subprocess.CompletedProcess, str]:
    """A rule script's body run as Snakemake runs it: its stderr is the console; and its log file."""
    log = tmp_path / "rule.log"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), IRDATA_TRACEBACK="1" if traceback else "0")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT).format(body=body), str(log)],
                          capture_output=True, text=True, env=env, timeout=120)
    return proc, log.read_text()


def test_the_console_gets_warnings_errors_and_console_lines_and_the_log_everything(tmp_path):
    proc, log = run_rule_script(tmp_path, "pass")
    assert proc.returncode == 0
    assert [line.split(": ", 1)[1] for line in proc.stderr.splitlines()] == ["for the console", "a warning"]
    assert "details" in log and "a progress bar" in log and "a warning" in log and "done in" in log


GATE = ("from irdata.doubting.gate import check_limits\n    "
        "check_limits({'grade': {'splits': {'dev': {'fraction': 0.5, 'failed': 5, 'total': 10, 'units': 'pairs', "
        "'by_kind': {'timeout': 5}, 'retryable': 5, 'jobs_with_failures': ['s.json']}}}}, {'grade': 0.01}, False)")


@pytest.mark.parametrize("body, first", [
    ("from irdata.errors import InputError\n    raise InputError('c.tsv', 'duplicate id', line=3, field='id')",
     "InputError: c.tsv, line 3, field 'id': duplicate id"),
    (GATE, "ReleaseGateError: release gate: too many LLM failures, nothing is published:"),
])
def test_a_stop_is_its_message_once_on_the_console_and_in_the_log_its_traceback_only_under_verbose(
        tmp_path, body, first):
    proc, log = run_rule_script(tmp_path, body)
    assert proc.returncode == 1
    errors = proc.stderr.split(" ERROR grade: ")
    assert len(errors) == 2 and errors[1].startswith(first), proc.stderr
    assert "Traceback" not in proc.stderr and "Traceback" not in log and first in log
    if "gate" in body:
        assert "What to check" in errors[1] and "--config accept_llm_failures=true" in errors[1]
    proc, log = run_rule_script(tmp_path, body, traceback=True)
    assert "Traceback (most recent call last)" in log and first in log


def test_an_unexpected_error_keeps_its_traceback(tmp_path):
    proc, log = run_rule_script(tmp_path, "raise RuntimeError('boom')")
    assert proc.returncode == 1
    assert "rule grade failed" in proc.stderr and "RuntimeError: boom" in proc.stderr and "Traceback" in log


def test_faiss_imports_without_its_loaders_noise_and_keeps_a_real_load_failure():
    code = ("import logging; logging.basicConfig(level=logging.INFO)\n"
            "from irdata.retrieval.faiss_lib import faiss, _not_noise\n"
            "print(faiss.IndexFlatIP(4).d)\n"
            "def rec(msg, level=logging.INFO): return logging.makeLogRecord({'msg': msg, 'levelno': level})\n"
            "print(_not_noise(rec('Could not load library with AVX2 support due to:\\nImportError(\"undefined "
            "symbol\")')), _not_noise(rec('Loading faiss.')), _not_noise(rec('x', logging.WARNING)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["4", "True", "False", "True"]
    assert "faiss" not in proc.stderr, proc.stderr


def test_a_local_run_without_cores_gets_profiles_local_machine_settings_and_a_cluster_run_its_own():
    profile = REPO / "profiles/local/config.yaml"
    cores, added = local_defaults(profile, None, None, {})
    assert cores == os.cpu_count() or cores >= 1
    assert added == {"llm_slots": 2}
    assert local_defaults(profile, 4, None, {"llm_slots": 8}) == (None, {})
    assert local_defaults(profile, None, 100, {}) == (None, {})  # --jobs: profiles/slurm's cluster run
