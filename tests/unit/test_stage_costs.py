"""irdata.stage_costs: a build's benchmarks/ folder as the README's per-rule cost table."""

import re
from pathlib import Path

import pytest

from irdata.sources.registry import SOURCES
from irdata.stage_costs import RuleCost, cost_table, rule_names, rule_of, stage_costs

REPO = Path(__file__).resolve().parents[2]
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
RULES = ["assemble", "downstream_train", "grade", "index_44b_miner_bm25", "index_44b_miner_dense"]


def bench(folder: Path, rel: str, *rows: tuple[float, str, float]) -> None:
    """A benchmark file of (wall s, max RSS, CPU s) runs."""
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + "".join(f"{s}\t0:00:01\t{rss}\t1.0\t1.0\t1.0\t0\t0\t50\t{cpu}\n" for s, rss, cpu in rows))


def test_each_rules_jobs_are_summed_and_its_largest_memory_kept(tmp_path):
    bench(tmp_path, "assemble.tsv", (2.0, "300.5", 1.5))
    bench(tmp_path, "grade/train/0000.tsv", (1.0, "120", 0.5))
    bench(tmp_path, "grade/dev/0000.tsv", (3.0, "NA", 2.0), (5.0, "140", 4.0))  # two repeats: their mean
    bench(tmp_path, "downstream/train/gt-model.release.tsv", (4.0, "900", 8.0))
    bench(tmp_path, "index_44b_miner/dense.tsv", (1.0, "-", 0.25))
    costs = stage_costs(tmp_path, RULES)
    assert costs == [RuleCost("downstream_train", 1, 8.0, 4.0, 900.0), RuleCost("grade", 2, 3.5, 5.0, 140.0),
                     RuleCost("assemble", 1, 1.5, 2.0, 300.5), RuleCost("index_44b_miner_dense", 1, 0.25, 1.0, None)]
    assert cost_table(costs).splitlines() == [
        "| rule | jobs | CPU s | wall s | max RSS (MB) |",
        "| --- | ---: | ---: | ---: | ---: |",
        "| `downstream_train` | 1 | 8.0 | 4.0 | 900 |",
        "| `grade` | 2 | 3.5 | 5.0 | 140 |",
        "| `assemble` | 1 | 1.5 | 2.0 | 300 |",
        "| `index_44b_miner_dense` | 1 | 0.2 | 1.0 |  |",
        "| total | 5 | 13.2 | 12.0 | 900 |",
    ]


def test_a_benchmark_file_is_its_rules_by_the_longest_name():
    assert rule_of("index_44b_miner/bm25.tsv", RULES) == "index_44b_miner_bm25"
    assert rule_of("grade/train/0001.tsv", [*RULES, "grade_x"]) == "grade"
    with pytest.raises(ValueError, match="no rule's"):
        rule_of("gradex/0000.tsv", RULES)


def test_every_rules_benchmark_file_is_read_as_that_rules():
    rules = rule_names(REPO / "rules")
    assert {"assemble", "index_44b_miner_dense", "fine_tune_44b_bi_encoder", "downstream_evaluate"} <= set(rules)
    declared = {}
    for path in (REPO / "rules").glob("*.smk"):
        for block in re.split(r"\n(?=\s*(?:use )?rule )", path.read_text()):
            header = re.match(r"\s*(?:rule (\w+):|use rule \w+ as (\w+))", block)
            bench_path = re.search(r'benchmark:\n\s+benchmarks\("([^"]+)"\)', block)
            if header and bench_path:
                declared[bench_path.group(1)] = header.group(1) or header.group(2)
    # every rule but the two that only publish a staged folder (a copy) has one; shard_queries is the target
    # over the rules generated per build, whose benchmarks are benchmarks/shard_queries/<build>.tsv
    # the input checks are declared in a loop over the sources (rules/queries.smk), their benchmarks
    # benchmarks/<rule>/<build>.tsv
    checks = {source.rule for source in SOURCES.values()}
    assert set(rules) - set(declared.values()) == {"package", "publish_44b", "shard_queries"} | checks
    assert {rule_of(f"{rule}/demo.tsv", rules) for rule in checks} == checks
    assert rule_of("shard_queries/demo.tsv", rules) == "shard_queries"
    assert {path: rule_of(path, rules) for path in declared} == declared
