"""What a build's jobs cost, per rule, from its benchmarks/ folder: each rule's `benchmark:` file is Snakemake's
TSV (s, h:m:s, max_rss, ..., cpu_time), one row a run. bench/bench_stage_costs.py prints the README's table."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from .sources.registry import SOURCES

RULE = re.compile(r"^\s*(?:rule (\w+):|use rule \w+ as (\w+))", re.M)


@dataclass(frozen=True)
class RuleCost:
    rule: str
    jobs: int
    cpu_s: float
    wall_s: float
    max_rss_mb: float | None  # the largest of its jobs; None when Snakemake measured none


def rule_names(rules_dir: Path) -> list[str]:
    """The rules that rules/*.smk declare, `use rule ... as` ones included, and the input check of each source
    (rules/queries.smk declares them in a loop over the sources, by name)."""
    declared = {a or b for path in sorted(Path(rules_dir).glob("*.smk"))
                for a, b in RULE.findall(path.read_text(encoding="utf-8"))}
    return sorted(declared | {source.rule for source in SOURCES.values()})


def rule_of(relpath: str, rules: list[str]) -> str:
    """The rule whose benchmark file `relpath` is: the longest rule name that the path, its folders joined by
    `_`, starts with (benchmarks/<rule>.tsv, benchmarks/<rule>/..., and benchmarks/downstream/train/... for
    downstream_train)."""
    flat = relpath.removesuffix(".tsv").replace("/", "_")
    found = [rule for rule in rules if flat == rule or flat.startswith(rule + "_")]
    if not found:
        raise ValueError(f"benchmark file {relpath} is no rule's of {len(rules)} rules")
    return max(found, key=len)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:  # Snakemake writes NA or - for what it could not measure
        return None


def stage_costs(folder: Path, rules: list[str]) -> list[RuleCost]:
    """Per rule: its jobs (benchmark files), their CPU and wall seconds summed (the mean of a file's repeats)
    and the largest max RSS; the costliest in CPU first."""
    runs: dict[str, list[tuple[float, float, float | None]]] = {}
    folder = Path(folder)
    for path in sorted(folder.rglob("*.tsv")):
        with path.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
        if not rows:
            raise ValueError(f"{path}: no run recorded")
        cpu = sum(_number(r["cpu_time"]) or 0.0 for r in rows) / len(rows)
        wall = sum(float(r["s"]) for r in rows) / len(rows)
        rss = [v for v in (_number(r["max_rss"]) for r in rows) if v is not None]
        runs.setdefault(rule_of(path.relative_to(folder).as_posix(), rules), []).append(
            (cpu, wall, max(rss) if rss else None))
    costs = []
    for rule, jobs in runs.items():
        rss = [r for _, _, r in jobs if r is not None]
        costs.append(RuleCost(rule, len(jobs), sum(c for c, _, _ in jobs), sum(w for _, w, _ in jobs),
                              max(rss) if rss else None))
    return sorted(costs, key=lambda c: (-c.cpu_s, c.rule))


def cost_table(costs: list[RuleCost]) -> str:
    """A markdown table of `costs` with a total row (its max RSS the largest of any job)."""
    lines = ["| rule | jobs | CPU s | wall s | max RSS (MB) |", "| --- | ---: | ---: | ---: | ---: |"]
    for c in costs:
        lines.append(f"| `{c.rule}` | {c.jobs} | {c.cpu_s:,.1f} | {c.wall_s:,.1f} | {_rss(c.max_rss_mb)} |")
    rss = [c.max_rss_mb for c in costs if c.max_rss_mb is not None]
    lines.append(f"| total | {sum(c.jobs for c in costs)} | {sum(c.cpu_s for c in costs):,.1f} | "
                 f"{sum(c.wall_s for c in costs):,.1f} | {_rss(max(rss) if rss else None)} |")
    return "\n".join(lines) + "\n"


def _rss(value: float | None) -> str:
    return "" if value is None else f"{value:,.0f}"
