"""`python tests/snakemake_real_run.py <snakemake arguments>`: Snakemake's own command line, run for real up to the
point where the workflow would start its jobs, and stopped there.

A dry-run (-n) skips what only a real run checks (Snakemake's "cores have to be specified", the remote executor's
--jobs) and gives the run settings of its own (--cores 1): a printed command whose dry-run passes can still stop
at once when run as printed. This runs the real path (profiles, the Snakefile, Snakemake's checks of the run's
settings) and prints the settings the jobs would get instead of running them.
"""

from __future__ import annotations

import sys

from snakemake.cli import main
from snakemake.workflow import Workflow


def _stop_before_the_jobs(workflow: Workflow, *args, **kwargs):
    settings = workflow.resource_settings
    resources = {name: res.value for name, res in workflow.global_resources.items() if not name.startswith("_")}
    print(f"a real run would start: cores={settings.cores} jobs={settings.nodes} resources={resources}")
    raise SystemExit(0)


if __name__ == "__main__":
    Workflow.execute = _stop_before_the_jobs
    main(sys.argv[1:])
