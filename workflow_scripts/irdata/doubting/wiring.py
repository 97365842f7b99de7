"""What rules/package.smk wires: the per-shard LLM rules, their prompts (which MANIFEST.json hashes), the stats
files the release gate reads, and assemble's per-shard inputs. Plain functions, so the rules only name them."""

from __future__ import annotations

from collections.abc import Callable

from ..shard_files import SPLIT_FILES, rule_splits
from .gate import AUDIT_SPLIT, STAGES, input_name

# shard_paths(split, kind, rule): every shard's file of one kind (rules/common.smk binds the config's shard counts)
ShardPaths = Callable[..., list]


def llm_rules() -> list[str]:
    """The gated LLM rules that run per shard (the label audit, when configured, is one job of its own)."""
    return [name for name in STAGES if rule_splits(name)]


def prompt_paths(stage_wiring, rules: list[str], build: str) -> list[str]:
    """The prompt files of every split of `rules` in a build, once each, sorted (`stage_wiring`:
    irdata.stage_registry.StageWiring)."""
    return sorted({path for name in rules for split in rule_splits(name)
                   for path in stage_wiring.prompt_paths(name, {"split": split}, build)})


def llm_job_stats(shard_paths: ShardPaths, rules: list[str], audit_stats: str | None = None) -> dict[str, list]:
    """The release gate's inputs: the stats file of every LLM job by rule and split, and the label audit's
    when it runs (`audit_stats`)."""
    stats = {input_name(name, split): shard_paths(split, "stats", name)
             for name in rules for split in rule_splits(name)}
    if audit_stats:
        stats[input_name("audit_labels", AUDIT_SPLIT)] = [audit_stats]
    return stats


def assemble_shard_inputs(shard_paths: ShardPaths) -> dict[str, list]:
    """assemble's per-shard inputs `<split>_<kind>`: each split's query ids and the files its LLM rules write."""
    return {f"{split}_{kind}": shard_paths(split, kind) for split, kinds in SPLIT_FILES.items()
            for kind in ("ids", *kinds)}


def batch_files(batches: dict) -> list[str]:
    """The query id files of doubting.acquisition_batches, train's then dev's."""
    return [batch["query_ids_file"] for split in ("train", "dev") for batch in batches[split].get("batches", [])]
