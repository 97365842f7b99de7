"""Fixtures that run the real workflow with Snakemake in a fresh copy of the repository."""

from __future__ import annotations

import pytest

from repo_copy import copy_repo
from workflow_run import Workflow


@pytest.fixture
def workflow(tmp_path) -> Workflow:
    return Workflow(copy_repo(tmp_path / "wf"))
