"""How every rule script calls its function: `run_x(**job_args(snakemake))`, keyword arguments only.

A rule's named inputs, outputs and params become the function's keyword arguments under the same names, so a
swapped pair of paths is a TypeError, not a silent mix-up. The prompt inputs `prompt_<name>` become one
argument `prompts` ({name: Prompt}). The params that only decide reruns and journals (`code`, `retry`, and an
LLM rule's `job` and `retry_state`) are not passed as such: an LLM rule's script adds `job=llm_job(snakemake)`
(irdata.annotate.common), which this module does not import, so that a rule without an LLM neither needs the
LLM client's packages in its env nor has their code in its code hash. Every input and output a script reads must
be named in the rule.
"""

from __future__ import annotations

from .prompts import named_prompts

# params that decide reruns (`code`, `retry`) or name the LLM job's journal and retry state (read by llm_job)
BOOKKEEPING_PARAMS = frozenset({"code", "retry", "retry_state", "job"})


def named_items(files, what: str, rule: str) -> dict:
    """{name: path or list of paths} of a Snakemake Namedlist whose every entry has a name."""
    names = files._names  # name -> (start, end): Snakemake's own record of which entries a name covers
    covered = {i for start, end in names.values() for i in range(start, end if end is not None else start + 1)}
    if len(covered) < len(files):
        raise ValueError(f"rule {rule}: every {what} a script reads must be named in the rule; "
                         f"{len(files) - len(covered)} of {len(files)} are not")
    return {name: (str(value) if isinstance(value, str) else [str(v) for v in value])
            for name, value in files.items()}


def job_args(snakemake) -> dict:
    """The keyword arguments of a rule's function: its named inputs, outputs and params (see the module)."""
    rule = snakemake.rule
    inputs = named_items(snakemake.input, "input", rule)
    args = {name: value for name, value in inputs.items() if not name.startswith("prompt_")}
    if len(args) < len(inputs):
        args["prompts"] = named_prompts(snakemake.input)
    params = dict(snakemake.params.items())
    for name, value in [*named_items(snakemake.output, "output", rule).items(),
                        *((k, v) for k, v in params.items() if k not in BOOKKEEPING_PARAMS)]:
        if name in args:
            raise ValueError(f"rule {rule}: {name!r} names two of its inputs, outputs and params; rename one")
        args[name] = value
    return args
