"""Rule scripts read what their rules pass them (params, inputs, outputs): the one exception is the LLM
connection settings (servers, timeouts, concurrency), read from config["llm"] because they change no
output and so must not be params (a changed param reruns the job)."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_scripts_read_the_config_only_for_llm_connections():
    found = []
    for path in sorted((REPO / "workflow_scripts").rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for use in re.findall(r"snakemake\.config\S*", line):
                if not use.startswith('snakemake.config["llm"]'):
                    found.append(f"{path.relative_to(REPO)}:{number}: {use}")
    assert not found, "scripts must read settings from snakemake.params:\n" + "\n".join(found)
