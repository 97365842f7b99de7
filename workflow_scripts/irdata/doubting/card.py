"""The dataset card (README.md) of the package, rendered from the counts `assemble` computed.

Follows the structure and wording of spec/doubting-ms-marco.card.txt; every number in the text
comes from stats.json (the data) or inputs.json (the inputs), none is typed in. The YAML header's
`configs:` maps each config and split to its parquet file, so that
`datasets.load_dataset(<package folder>, <config>)` works offline.
"""

from __future__ import annotations

from .assemble import CONFIG_SPLITS, DATA_FILES

TITLE = "Doubting MS MARCO"


def n(x) -> str:
    return f"{int(x):,}"


def f2(x) -> str:
    return f"{x:.2f}"


def med(x) -> str:
    return f"{x:g}"


def yaml_header(title: str) -> str:
    lines = ["---", f"pretty_name: {title}", "configs:"]
    configs: dict[str, list[str]] = {}
    for config, split in CONFIG_SPLITS:
        configs.setdefault(config, []).append(split)
    for i, (config, splits) in enumerate(configs.items()):
        lines.append(f"- config_name: {config}")
        if i == 0:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in splits:
            lines += [f"  - split: {split}", f"    path: {DATA_FILES[(config, split)]}"]
    lines.append("---")
    return "\n".join(lines) + "\n"


def _table(header, rows) -> str:
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def _grades(hist: dict) -> str:
    return ", ".join(f"{g}: {n(hist[str(g)])}" for g in range(4))


def _batches(counts: dict, descriptions: dict) -> str:
    parts = []
    for name, count in counts.items():
        if not count:
            continue
        d = descriptions.get(name) or ""
        parts.append(f"{name}: {n(count)} queries" + (f", {d}" if d else ""))
    return "; ".join(parts) + "."


def model_name(identity: dict) -> str:
    model = identity.get("model")
    if isinstance(model, dict):
        model = model.get("name") or model.get("id")
    return str(model) if model else "(model identity not recorded)"


def llm_failures_text(failures: dict | None) -> str:
    """One paragraph: how many units of each LLM stage failed, and why (MANIFEST.json `failures`)."""
    if failures is None:
        return ""
    parts = []
    for stage, f in failures["stages"].items():
        kinds = ", ".join(f"{kind} {n(count)}" for kind, count in f["by_kind"].items())
        parts.append(f"{stage}: {n(f['failed'])} of {n(f['total'])} {f['units'] or 'units'} failed"
                     + (f" ({kinds})" if kinds else ""))
    accepted = (" The build was published over the configured failure limits (accept_llm_failures)."
                if failures.get("accepted") else "")
    return ("LLM calls that failed after retries, by stage (MANIFEST.json, failures): " + "; ".join(parts) + "."
            + accepted + " A failed unit has no label: never a default grade or score.")


def audit_text(audit: dict | None) -> str:
    """The label audit's agreement (MANIFEST.json `audit`), or that there was none."""
    if audit is None:
        return ("No label audit was run for this build (doubting.audit): the grades' agreement with human judgments "
                "is not measured here.")
    def fmt(x):
        return "n/a" if x is None else f"{x:.3f}"
    rows = [[f"human {g}", *(n(c) for c in row)] for g, row in enumerate(audit["confusion"])]
    table = _table(["", "model 0", "model 1", "model 2", "model 3"], rows)
    return (f"Label audit. {n(audit['pairs'])} human-judged pairs ({audit['qrels']}) were graded by the same model "
            f"and grading path as this release (grading = {audit['grading']}): Cohen's kappa "
            f"{fmt(audit['kappa_linear'])} (linear weights) and {fmt(audit['kappa_quadratic'])} (quadratic), exact "
            f"agreement {fmt(audit['exact_agreement'])}, binary agreement at grade >= 2 "
            f"{fmt(audit['binary_agreement_at_2'])}; "
            f"{n(audit['failures']['failed'])} pairs failed to grade and are left out"
            + (f", {n(audit['passages_missing'])} judged passages were not in the collection" if audit.get(
                "passages_missing") else "") + ".\n\n" + table)


def render(stats: dict, version: str, repo_id: str, identity: dict, inputs: dict, batch_descriptions: dict,
           llm_failures: dict | None = None, audit: dict | None = None) -> str:
    t, d = stats["splits"]["train"], stats["splits"]["dev"]
    rows = stats["rows"]
    excluded = t["excluded"]
    heldout, repeat = excluded.get("heldout", 0), excluded.get("repeat", 0)
    n_collection_passages = inputs.get("rows", {}).get("collection")
    n_dev_file = inputs.get("rows", {}).get("dev_queries")
    model = model_name(identity)
    fallback_none = t["selected_none"]
    failures_train, failures_dev = t["grading_failure_count"], d["grading_failure_count"]

    contents = _table(["Config", "Split", "Rows", "One row is"], [
        ["qrels (default)", "train", n(rows["qrels/train"]),
         "a training positive: an agent-proposed passage with grade 2 or 3 and a finite WOOD score"],
        ["qrels", "dev", n(rows["qrels/dev"]), "a strict development positive: grade 3"],
        ["judgments", "train", n(rows["judgments/train"]),
         f"a graded pair: {n(t['agent_pairs'])} agent proposals and {n(t['official_rows'])} official positives"],
        ["judgments", "dev", n(rows["judgments/dev"]),
         f"a graded pair: {n(d['agent_pairs'])} agent proposals and {n(d['official_rows'])} official positives "
         "the agent did not propose"],
        ["train_queries", "train", n(rows["train_queries/train"]),
         "a query of the training collection, with counts and its selected training positive"],
        ["dev_queries", "dev", n(rows["dev_queries/dev"]),
         "a development query, with counts and its strict-subset flag"],
        ["generated_answers", "train", n(rows["generated_answers/train"]),
         "the model-generated answer used to compute WOOD for that query"],
    ])
    schema = _table(["Config", "Column", "Type", "Meaning"], [
        ["qrels", "query_id, passage_id", "string", "the pair"],
        ["", "grade", "int8", "2 or 3 on train, 3 on dev"],
        ["judgments", "query_id, passage_id", "string", "the pair; unique together with origin"],
        ["", "origin", "string",
         "agent (proposed by the agent) or official (official MS MARCO positive graded on its own)"],
        ["", "grade", "int8", "0-3"],
        ["", "grading", "string", "query_only (train) or answer_hinted (dev)"],
        ["", "agent_rank", "int32", "position in the agent's proposal list; null for official rows"],
        ["", "wood", "float64", f"WOOD score; null for official rows, for dev, and for the {n(t['wood_null'])} train "
                                "proposals without a finite score"],
        ["", "train_eligible", "bool", "train: grade 2 or 3 and finite WOOD (the qrels train rule); null on dev and "
                                       "for official rows"],
        ["", "official_positive", "bool", "the pair is a positive in the original MS MARCO qrels of that split"],
        ["train_queries", "query_id", "string", "collection query"],
        ["", "acquisition_batch", "string", "see above"],
        ["", "agent_row", "bool", "the agent proposed at least one passage"],
        ["", "n_agent, n_eligible, n_eligible_grade3, n_official", "int32",
         "proposals; training positives; those with grade 3; official positives"],
        ["", "positive_id, positive_source", "string", "selected training positive; wood or official_fallback"],
        ["", "positive_agent_grade, positive_official_grade, positive_wood", "int8, int8, float64",
         "its grade as an agent proposal, its grade as an official positive and its WOOD; null where it is not one"],
        ["dev_queries", "query_id, acquisition_batch", "string", "development query; its acquisition batch"],
        ["", "strict_subset", "bool", "has at least one grade-3 pair"],
        ["", "n_agent, n_official, n_judged, n_strict", "int32",
         "agent proposals; official positives; graded pairs; grade-3 pairs"],
        ["generated_answers", "query_id, answer", "string", "the generated answer used for WOOD"],
    ])

    assigned = t["assigned"]
    dev_scope = (f"All {n(d['queries'])} queries of the MS MARCO dev set (\"dev small\")."
                 if n_dev_file is None or n_dev_file == d["queries"] else
                 f"{n(d['queries'])} of the {n(n_dev_file)} queries of the MS MARCO dev set (\"dev small\"), a "
                 "deterministic sample.")
    no_pos = (f" {n(fallback_none)} queries have neither a qualifying pair nor an official positive; their "
              "positive_id and positive_source are null." if fallback_none else "")
    failures = (f"{n(failures_train)} train and {n(failures_dev)} dev grading calls failed after retries; those "
                "pairs have no grade, are not in judgments, and are listed in MANIFEST.json (grading_failures).")
    collection_size = (f"{n(n_collection_passages)} passages in the collection this release was built from; "
                       if n_collection_passages else "")

    text = f"""{repo_id}

# {TITLE} ({version})

A cleaner, more densely annotated MS MARCO resource for training and evaluating passage retrievers. It provides
{n(rows['qrels/train'])} training-positive pairs and {n(rows['qrels/dev'])} strict-positive pairs covering
{n(d['strict_queries'])} development queries, keyed by the original MS MARCO query and passage IDs. A frozen-LLM
search agent combines lexical and dense retrieval with adaptive query reformulation to discover additional answer
passages. Separate calls to the same model assess each proposed passage and every official positive. The annotations
accompany the paper Doubting MS MARCO: Cleaner Labels for Retrieval Training and Evaluation.

The package holds ids and annotations only. It contains no query or passage text; join the ids with your own copy of
MS MARCO (see below). This is release {version}: its files are frozen by the checksums in SHA256SUMS, and a later
release that changes any content will carry a new version.

## Contents

{contents}

Companion files: trec/dev.strict.qrels (the strict development qrels in TREC format), ids/ (the training collection,
the excluded training ids with the reason, all development ids and the strict development subset:
ids/train_collection.txt, ids/train_excluded.tsv, ids/dev_all.txt, ids/dev_strict.txt), examples/, MANIFEST.json
(version, row counts, source and code checksums) and SHA256SUMS.

## Coverage

**Train.** The collection has {n(t['queries'])} MS MARCO training queries: the {n(assigned)} queries assigned for
annotation minus {n(heldout)} whose text equals that of a held-out development or test query and {n(repeat)} whose
text repeats an earlier query's, with texts compared in lower case and with punctuation removed
(ids/train_excluded.tsv).

- The agent proposed passages for {n(t['queries_with_agent_rows'])} queries: {n(t['agent_pairs'])} graded
  query-passage pairs. {n(t['queries_without_agent_rows'])} queries have no agent row. They stay in train_queries
  with agent_row = false and zero agent counts; their official positives are graded and one of them is the selected
  fallback positive.
- Grades of the agent's proposals: {_grades(t['agent_grades'])}. {n(t['wood_null'])} proposals have no finite WOOD
  score (wood is null).
- Training positives (grade 2 or 3 and finite WOOD): {n(t['positive_pairs'])} pairs on {n(t['positive_queries'])}
  queries, a mean of {f2(t['positive_mean_per_query'])} and a median of {med(t['positive_median_per_query'])} per
  collection query, with every collection query in the denominator. {n(t['agent_queries_without_positive'])} queries
  have agent proposals but no qualifying pair. Grade 3 with finite WOOD: {n(t['grade3_eligible_pairs'])} pairs on
  {n(t['grade3_eligible_queries'])} queries. Grade 3 without the WOOD condition: {n(t['grade3_agent_pairs'])} pairs.
- Official MS MARCO positives, graded separately: {n(t['official_rows'])} pairs (grades
  {_grades(t['official_grades'])}). When the agent also proposed an official positive, both rows are kept, with
  their own origin and grade ({n(t['official_rows_also_proposed'])} such pairs).
- Selected training positive, one per query: {n(t['selected_wood'])} chosen by WOOD and {n(t['selected_fallback'])}
  official fallbacks for the queries without a qualifying pair. A fallback is marked positive_source =
  official_fallback, keeps whatever grades and WOOD score it has (often none), and is not counted among the training
  positives above.{no_pos}

**Dev.** {dev_scope} {n(d['judgments'])} graded pairs: {n(d['agent_pairs'])} agent proposals and
{n(d['official_rows'])} official positives the agent did not propose; the dev set has {n(d['official_positives'])}
official positive pairs in total. The strict qrels hold {n(d['strict_pairs'])} grade-3 pairs on
{n(d['strict_queries'])} queries (mean {f2(d['strict_mean_per_query'])} and median
{med(d['strict_median_per_query'])} per query over all {n(d['queries'])}). The other
{n(d['queries'] - d['strict_queries'])} queries have no grade-3 pair: {n(d['nonstrict_with_agent'])} have graded
proposals none of which received grade 3, and {n(d['nonstrict_without_agent'])} have no agent proposal. They remain
in dev_queries (strict_subset = false) and in ids/dev_all.txt; a missing grade 3 does not show that no answering
passage exists.

{failures}

{llm_failures_text(llm_failures)}

{audit_text(audit)}

## How the annotations were made

- Model. A frozen {model} served the search agent, the grading calls and WOOD (MANIFEST.json records the model and
  server identity and the decoding settings).
- Search. For each query the agent searched lexical and dense indexes of the passage collection, inspected results,
  reformulated the query and proposed passages. agent_rank is the passage's position in the proposal list. Proposal
  lists reach {n(d['max_agent_rank'])} passages per query on the development run, against {n(t['max_agent_rank'])}
  on train.
- Grades. A separate call without the search history graded each pair: 0 irrelevant, 1 marginally related, 2
  relevant, 3 directly answering (an answer supported by the passage itself, including paraphrase or a short
  unambiguous inference). Training grades see only the query and the passage (grading = query_only). Development
  grades also see the MS MARCO reference answer as a fallible hint and accept other correct answers (grading =
  answer_hinted). Official positives were graded by the same rule as the agent's proposals of the same split. Train
  and dev grades therefore come from different settings and are not directly comparable.
- WOOD (Weighted Output Odds Differential; training only). The model writes a short answer from up to three proposed
  passages. WOOD of a passage is the mean gain in log-likelihood of that answer's tokens when the passage is given,
  compared with the query alone. The generated answers are in generated_answers; they are model output derived from
  passages, not MS MARCO reference answers.
- Selected positive. The highest finite WOOD among the query's grade 2-3 proposals (ties: the higher grade, then the
  earlier agent_rank); when no proposal qualifies, a deterministic official positive: the one whose own official
  grade is highest (an ungraded one ranks last), then the highest MS MARCO relevance, then the smallest passage_id
  as a string.
- Development set (acquisition_batch): {_batches(d['acquisition_batches'], batch_descriptions.get('dev', {}))}
- Acquisition batches (train): {_batches(t['acquisition_batches'], batch_descriptions.get('train', {}))}

## Schema

All ids are strings exactly as in MS MARCO. Grades are integers 0-3. Null means "not available", never zero.

{schema}

## Loading

```python
from datasets import load_dataset

repo = "{repo_id}"  # a local copy of the folder works as well
qrels = load_dataset(repo, "qrels")                              # DatasetDict with train and dev
dev_judgments = load_dataset(repo, "judgments", split="dev")
train_queries = load_dataset(repo, "train_queries", split="train")
selected = train_queries.filter(lambda r: r["positive_source"] == "wood")
```

examples/load.py prints a few rows of every config. Large splits can be streamed with streaming=True.

## Joining the original text

The ids refer to the MS MARCO passage ranking v1 collection ({collection_size}the ids of collection.tsv, of
ir_datasets msmarco-passage and of BEIR msmarco), its training queries and its "dev small" set. Obtain the text from
the original source under its terms, for example:

```python
import ir_datasets
docs = ir_datasets.load("msmarco-passage").docs_store()
queries = {{q.query_id: q.text for q in ir_datasets.load("msmarco-passage/dev/small").queries_iter()}}
row = dev_judgments[0]
print(queries[row["query_id"]], "|", docs.get(row["passage_id"]).text)
```

examples/join_text.py does the same from the official TSV files (collection.tsv, queries.train.tsv,
queries.dev.small.tsv) and needs only pyarrow; for the judgments config it keeps the origin column, because one pair
can carry both an agent grade and an official-positive grade.

## Evaluating on the strict dev qrels

```
python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec
python examples/evaluate.py --export-train-qrels train.qrels --package .   # TREC qrels from the qrels train split
```

evaluate.py reports MRR@10, nDCG@10 and Recall@100 over the {n(d['strict_queries'])} queries of the strict subset, a
query missing from the run counting 0, the usual convention for queries without a relevant pair; ids/dev_all.txt
lists all {n(d['queries'])}. Unjudged passages count as non-relevant, as in standard practice; they are not verified
negatives.

## Citation

Paper: Doubting MS MARCO: Cleaner Labels for Retrieval Training and Evaluation. The citation entry will be added
with the paper.
"""
    return yaml_header(TITLE) + "\n" + text
