"""Per-query counts and a split's statistics: the numbers of stats.json, which the card and
MANIFEST.json report. Definitions: assemble.py's module doc.

Shards add to a `SplitStats` of their own (so they can run in parallel); `merge` adds them up in
shard order and `summary` gives the split's section of stats.json.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from ..grade_scale import GRADES


def per_query(query: np.ndarray, n_queries: int, mask: np.ndarray | None = None) -> np.ndarray:
    """int32 count of rows per query position (of the rows where `mask`, if given)."""
    return np.bincount(query if mask is None else query[mask], minlength=n_queries).astype(np.int32)


def grade_counts(grades: np.ndarray) -> np.ndarray:
    return np.bincount(grades, minlength=len(GRADES))[:len(GRADES)]


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if len(values) else 0.0


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else 0.0


@dataclass
class SplitStats:
    counts: Counter = field(default_factory=Counter)       # summed over shards (keys: `summary`)
    per_query: dict[str, list[np.ndarray]] = field(default_factory=dict)   # n_agent, ...: one array per shard
    agent_grades: np.ndarray = field(default_factory=lambda: np.zeros(len(GRADES), np.int64))
    official_grades: np.ndarray = field(default_factory=lambda: np.zeros(len(GRADES), np.int64))
    max_agent_rank: int = 0
    batches: Counter = field(default_factory=Counter)      # queries per acquisition batch
    grade_paths: Counter = field(default_factory=Counter)  # grade rows per grade_path
    failures: list[dict] = field(default_factory=list)     # grading failures
    strict_ids: list[pa.Array] = field(default_factory=list)   # dev: the strict queries, in shard order

    def add_per_query(self, **columns: np.ndarray) -> None:
        for name, values in columns.items():
            self.per_query.setdefault(name, []).append(values)

    def merge(self, other: SplitStats) -> None:
        self.counts.update(other.counts)
        for name, values in other.per_query.items():
            self.per_query.setdefault(name, []).extend(values)
        self.agent_grades += other.agent_grades
        self.official_grades += other.official_grades
        self.max_agent_rank = max(self.max_agent_rank, other.max_agent_rank)
        self.batches.update(other.batches)
        self.grade_paths.update(other.grade_paths)
        self.failures += other.failures
        self.strict_ids += other.strict_ids

    def _all(self, name: str) -> np.ndarray:
        values = self.per_query.get(name, [])
        return np.concatenate(values) if values else np.zeros(0, np.int32)

    def summary(self, split: str, n_queries: int, n_official_positives: int) -> dict:
        """The split's section of stats.json (acquisition batches, failures and exclusions: assemble)."""
        c = self.counts
        n_agent = self._all("n_agent")
        out = {
            "queries": n_queries,
            "queries_with_agent_rows": int((n_agent > 0).sum()),
            "queries_without_agent_rows": int((n_agent == 0).sum()),
            "queries_with_proposals": c["queries_with_proposals"],
            "agent_pairs": c["agent_pairs"],
            "agent_grades": {str(g): int(n) for g, n in zip(GRADES, self.agent_grades)},
            "official_rows": c["official_rows"],
            "official_grades": {str(g): int(n) for g, n in zip(GRADES, self.official_grades)},
            "official_positives": n_official_positives,
            "official_rows_also_proposed": c["official_also_proposed"],
            "judgments": c["agent_pairs"] + c["official_rows"],
            "max_agent_rank": self.max_agent_rank,
            "proposals_without_grade": c["proposals_ungraded"],
            "grading_failure_count": len(self.failures),
            "cited_proposals": c["cited_proposals"],
            "grade_paths": dict(sorted(self.grade_paths.items())),
        }
        if split == "train":
            n_eligible, n_eligible_grade3 = self._all("n_eligible"), self._all("n_eligible_grade3")
            out.update({
                "wood_null": c["wood_null"],
                "wood_null_failed": c["wood_failed"],
                "positive_pairs": int(n_eligible.sum()),
                "positive_queries": int((n_eligible > 0).sum()),
                "positive_mean_per_query": _mean(n_eligible),
                "positive_median_per_query": _median(n_eligible),
                "agent_queries_without_positive": int(((n_agent > 0) & (n_eligible == 0)).sum()),
                "grade3_eligible_pairs": int(n_eligible_grade3.sum()),
                "grade3_eligible_queries": int((n_eligible_grade3 > 0).sum()),
                "grade3_agent_pairs": c["grade3_agent"],
                **{key: c[key] for key in ("selected_wood", "selected_fallback", "selected_none",
                                           "fallback_with_official_grade", "fallback_with_agent_grade", "answers",
                                           "agent_queries_without_answer")},
            })
        else:
            n_strict = self._all("n_strict")
            out.update({
                "strict_pairs": c["strict_pairs"],
                "strict_queries": int((n_strict > 0).sum()),
                "strict_mean_per_query": _mean(n_strict),
                "strict_median_per_query": _median(n_strict),
                "nonstrict_with_agent": int(((n_strict == 0) & (n_agent > 0)).sum()),
                "nonstrict_without_agent": int(((n_strict == 0) & (n_agent == 0)).sum()),
            })
        return out
