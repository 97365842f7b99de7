"""The stage registry: every rule that reads settings declares them in a Stage spec (irdata/stage.py) in its
family's stages module (irdata/<family>/stages.py: annotate, doubting, retrieval, downstream, eval44b); here they
are, by rule name, and the wiring that turns them into each job's params and prompt inputs.
A rule gets all its params from one call, `stage_params(<rule>)` (rules/common.smk): `settings` (its Stage's),
`code` (the code identity of the script the rule names, its modules and prompts: irdata/code_identity.py), and for
an LLM job `job`, `retry_state` and `retry`. A rule without a Stage reads no settings and gets `code` alone.

Only the Snakefile (and the audit test, tests/unit/test_stage_settings.py) imports this registry, so a
script's code identity does not cover the other stages. A stage's settings function need not be in its
script's closure: what it returns is the `settings` param, whose change reruns the job itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache

from .annotate import stages as annotate_stages
from .annotate.retry import retry_generation
from .code_identity import code_identity
from .doubting import stages as doubting_stages
from .downstream import stages as downstream_stages
from .eval44b import stages as eval44b_stages
from .retrieval import stages as retrieval_stages
from .stage import Stage
from .workdir import workflow_file

STAGES: dict[str, Stage] = {s.name: s for s in (
    *doubting_stages.STAGES, *retrieval_stages.STAGES, *annotate_stages.STAGES, *downstream_stages.STAGES,
    *eval44b_stages.STAGES)}


class StageWiring:
    """The params and prompt inputs of each stage's jobs for one workflow's config, memoized per job
    (a production DAG has thousands of jobs; each setting is computed once per distinct wildcards)."""

    def __init__(self, config: dict, basedir: str, rule_script: Callable[[str], str],
                 stages: dict[str, Stage] = STAGES, builds: dict[str, dict] | None = None):
        """`rule_script(name)`: the script a rule names, relative to the workflow folder (asked once the
        rules are read, when the first job's params are). `builds`: each named Doubting build's whole config
        (irdata/builds.py), which a job with the {build} wildcard reads instead of `config`."""
        self.config, self.basedir, self.stages = config, basedir, stages
        self.builds = builds or {}
        self._script = lru_cache(maxsize=None)(rule_script)
        self._settings = lru_cache(maxsize=None)(self._settings_of)
        self._prompts = lru_cache(maxsize=None)(self._prompts_of)
        self._code = lru_cache(maxsize=None)(self._code_of)
        self._inputs = lru_cache(maxsize=None)(self._inputs_of)
        # the files do not change while Snakemake plans: a code identity and a prompt's path are computed once per
        # (script, prompts), not once per job (bench/bench_dag.py)
        self._code_identity = lru_cache(maxsize=None)(self._code_identity_of)
        self._sources: dict[str, set[tuple[str, tuple[str, ...]]]] = {}
        self._workflow_file = lru_cache(maxsize=None)(lambda path: workflow_file(path, self.basedir))

    def _config_of(self, wildcards: dict) -> dict:
        """The config a job reads: its build's (wildcard or bound `build`; an index of a build's collection, which
        is named as the build, reads the build's retrieval settings), else the workflow's."""
        build = wildcards.get("build", wildcards.get("collection"))
        return self.builds[build] if build in self.builds else self.config

    def _settings_of(self, name: str, wildcards: str) -> dict:
        wildcards = json.loads(wildcards)
        return self.stages[name].settings(self._config_of(wildcards), **wildcards)

    def _prompts_of(self, name: str, wildcards: str) -> tuple[tuple[str, str], ...]:
        wildcards = json.loads(wildcards)
        return tuple(sorted(self.stages[name].prompts(self._config_of(wildcards), **wildcards).items()))

    def _inputs_of(self, name: str, wildcards: str) -> dict[str, str]:
        return {f"prompt_{key}": self._workflow_file(path) for key, path in self._prompts(name, wildcards)}

    def _code_identity_of(self, script: str, prompts: tuple[str, ...]) -> str:
        identity = code_identity(script, self.basedir, prompts)
        self._sources.setdefault(identity, set()).add((script, prompts))
        return identity

    def _code_of(self, name: str, wildcards: str) -> str:
        prompts = tuple(path for _, path in self._prompts(name, wildcards)) if name in self.stages else ()
        return self._code_identity(self._script(name), prompts)

    @staticmethod
    def _key(wildcards, build: str | None = None) -> str:
        values = dict(wildcards.items()) if hasattr(wildcards, "items") else dict(wildcards or {})
        return json.dumps({**values, "build": build} if build else values, sort_keys=True)

    def settings(self, name: str, wildcards=None, build: str | None = None) -> dict:
        return self._settings(name, self._key(wildcards, build))

    def prompt_paths(self, name: str, wildcards=None, build: str | None = None) -> list[str]:
        """The stage's prompt files relative to the workflow folder (as code identities and MANIFEST.json name them)."""
        return [path for _, path in self._prompts(name, self._key(wildcards, build))]

    def prompt_inputs(self, name: str, wildcards=None, build: str | None = None) -> dict[str, str]:
        """Named inputs `prompt_<name>` (scripts read them with irdata.prompts.named_prompts), as the
        working folder reaches the workflow's files."""
        return dict(self._inputs(name, self._key(wildcards, build)))

    def code(self, name: str, wildcards=None, build: str | None = None) -> str:
        """The code identity of the rule's script, the modules it imports and its prompts (irdata/code_identity.py)."""
        return self._code(name, self._key(wildcards, build))

    def code_sources(self, identity: str) -> set[tuple[str, tuple[str, ...]]]:
        """The (script, prompt files) whose code identity this planning found to be `identity` (the upgrade of a
        checkout's records recomputes the old scheme's hash of each: irdata/code_upgrade.py)."""
        return self._sources.get(identity, set())

    def params(self, name: str, build: str | None = None) -> dict:
        """The params of rule `name`'s jobs: values, wildcard patterns, or functions of the wildcards.
        `build`: the Doubting build of a rule without the {build} wildcard."""
        params = {"code": lambda wildcards: self.code(name, wildcards, build)}
        stage = self.stages.get(name)
        if stage is None:
            return params
        params["settings"] = lambda wildcards: self.settings(name, wildcards, build)
        if stage.job:
            params["job"] = stage.job
        if stage.retry_state:
            state = stage.retry_state
            params["retry_state"] = state
            params["retry"] = (lambda wildcards: retry_generation(state.format(**dict(wildcards.items())))) \
                if "{" in state else retry_generation(state)
        return params
