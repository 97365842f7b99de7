"""The dataset card (README.md) of the package, rendered from the counts `assemble` computed and the config.

Follows the structure and wording of spec/doubting-ms-marco.card.txt; every number in the text
comes from stats.json (the data) or inputs.json (the inputs), none is typed in, and every claim
about the corpus, the ids, the model, the license and the paper comes from the config
(`doubting.ids_refer_to`, `corpus_description`, `license`, `license_note`, `paper`) or the
recorded LLM identity. The YAML header's `configs:` maps each config and split to its parquet
file, so that `datasets.load_dataset(<package folder>, <config>)` works offline; a split with no
rows is left out of it (datasets 5.2.0 cannot load one) and the card names it and says why. The
Schema table's columns and types are generated from assemble.SCHEMAS.
"""

from __future__ import annotations

import os

import pyarrow as pa

from ..grade_scale import GRADES
from .assemble import CONFIG_SPLITS, DATA_FILES, SCHEMAS

TITLE = "Doubting MS MARCO"
MSMARCO_V1 = "msmarco-v1"
# the keys of the config's `doubting` section the card reads (schemas/doubting.schema.yaml)
CARD_KEYS = ("collection", "train_queries", "train_qrels", "dev_queries", "ids_refer_to", "corpus_description",
             "license", "license_note", "paper", "package_dir")
TYPE_NAMES = {pa.string(): "string", pa.int8(): "int8", pa.int32(): "int32", pa.float64(): "float64",
              pa.bool_(): "bool"}
# what datasets 5.2.0 raises when asked for a split with no rows
EMPTY_SPLIT_ERROR = 'Instruction "train" corresponds to no data!'


def card_settings(config: dict) -> dict:
    """The settings the card reads, from the config used (its `doubting` section)."""
    doubting = config["doubting"]
    return {key: doubting[key] for key in CARD_KEYS}


def n(x) -> str:
    return f"{int(x):,}"


def f2(x) -> str:
    return f"{x:.2f}"


def med(x) -> str:
    return f"{x:g}"


def declared_configs(rows: dict) -> dict[str, list[str]]:
    """{config: [split, ...]} of the splits with rows, in card order; a config without any is left out."""
    configs: dict[str, list[str]] = {}
    for config, split in CONFIG_SPLITS:
        if rows[f"{config}/{split}"]:
            configs.setdefault(config, []).append(split)
    return configs


def yaml_header(title: str, configs: dict[str, list[str]], license_id: str) -> str:
    lines = ["---", f"pretty_name: {title}", f"license: {license_id}", "configs:"]
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
    return ", ".join(f"{g}: {n(hist[str(g)])}" for g in GRADES)


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
    """One paragraph: how many units of each LLM stage and split failed, and why (MANIFEST.json `failures`)."""
    if failures is None:
        return ""
    parts = []
    for stage, record in failures["stages"].items():
        splits = []
        for split, f in record["splits"].items():
            kinds = ", ".join(f"{kind} {n(count)}" for kind, count in f["by_kind"].items())
            splits.append(f"{split} {n(f['failed'])} of {n(f['total'])} {f['units'] or 'units'}"
                          + (f" ({kinds})" if kinds else ""))
        parts.append(f"{stage}: " + ", ".join(splits))
    accepted = (" The build was published over the configured failure limits (accept_llm_failures)."
                if failures.get("accepted") else "")
    return ("Units that ended without a label after retries, by stage and split (MANIFEST.json, failures; an "
            "agent episode also fails when it ends by breaking the tool protocol, kind protocol): "
            + "; ".join(parts) + "." + accepted + " A failed unit has no label: never a default grade or score.")


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


def column_meanings(t: dict, official: str) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Per config, groups of consecutive columns and what they mean; columns and types come from SCHEMAS."""
    return {
        "qrels": [(("query_id", "passage_id"), "the pair"), (("grade",), "2 or 3 on train, 3 on dev")],
        "judgments": [
            (("query_id", "passage_id"), "the pair; unique together with origin"),
            (("origin",), f"agent (proposed by the agent) or official ({official} graded on its own)"),
            (("grade",), "0-3"),
            (("grading",), "query_only (train) or answer_hinted (dev)"),
            (("agent_rank",), "position in the agent's proposal list; null for official rows"),
            (("wood",), f"WOOD score; null for official rows, for dev, and for the {n(t['wood_null'])} train "
                        "proposals without a finite score"),
            (("train_eligible",), "train: grade 2 or 3 and finite WOOD (the qrels train rule); null on dev and for "
                                  "official rows"),
            (("official_positive",), "the pair is a positive in the original qrels of that split"),
        ],
        "train_queries": [
            (("query_id",), "collection query"),
            (("acquisition_batch",), "see above"),
            (("agent_row",), "the agent proposed at least one passage"),
            (("n_agent", "n_eligible", "n_eligible_grade3", "n_official"),
             "proposals; training positives; those with grade 3; official positives"),
            (("positive_id", "positive_source"), "selected training positive; wood or official_fallback"),
            (("positive_agent_grade", "positive_official_grade", "positive_wood"),
             "its grade as an agent proposal, its grade as an official positive and its WOOD; null where it is not "
             "one"),
        ],
        "dev_queries": [
            (("query_id", "acquisition_batch"), "development query; its acquisition batch"),
            (("strict_subset",), "has at least one grade-3 pair"),
            (("n_agent", "n_official", "n_judged", "n_strict"),
             "agent proposals; official positives; graded pairs; grade-3 pairs"),
        ],
        "generated_answers": [(("query_id", "answer"), "the generated answer used for WOOD")],
    }


def schema_table(meanings: dict) -> str:
    """The Schema section's table: every column of SCHEMAS in order with its type, grouped by meaning."""
    rows = []
    for config, schema in SCHEMAS.items():
        groups = meanings[config]
        covered = [c for columns, _ in groups for c in columns]
        if covered != schema.names:
            raise ValueError(f"card meanings of {config} cover {covered}, the schema has {schema.names}")
        for i, (columns, meaning) in enumerate(groups):
            types = list(dict.fromkeys(TYPE_NAMES.get(schema.field(c).type, str(schema.field(c).type))
                                       for c in columns))
            if len(types) > 1:
                types = [TYPE_NAMES.get(schema.field(c).type, str(schema.field(c).type)) for c in columns]
            rows.append([config if i == 0 else "", ", ".join(columns), ", ".join(types), meaning])
    return _table(["Config", "Column", "Type", "Meaning"], rows)


def _empty_reason(config: str, split: str, t: dict, d: dict) -> str:
    if config == "qrels" and split == "train":
        return (f"no agent proposal got grade 2 or 3 with a finite WOOD score (grades of the "
                f"{n(t['agent_pairs'])} proposals: {_grades(t['agent_grades'])})")
    if config == "qrels":
        return f"no pair of the {n(d['judgments'])} dev judgments got grade 3"
    if config == "judgments":
        s = t if split == "train" else d
        return (f"no pair was graded ({n(s['agent_pairs'])} agent proposals, {n(s['grading_failure_count'])} "
                "failed grading calls)")
    if config == "generated_answers":
        return "no answer was generated: no query has an agent proposal, or every answer call failed"
    return f"the {split} query list is empty"


def empty_splits_text(rows: dict, configs: dict, t: dict, d: dict) -> str:
    empty = [(c, s) for c, s in CONFIG_SPLITS if not rows[f"{c}/{s}"]]
    if not empty:
        return ""
    items = "\n".join(f"- {c}/{s}: {_empty_reason(c, s, t, d)}." for c, s in empty)
    undeclared = [c for c in dict.fromkeys(c for c, _ in CONFIG_SPLITS) if c not in configs]
    whole = (f" The config{'s' if len(undeclared) > 1 else ''} {', '.join(undeclared)} therefore "
             f"{'are' if len(undeclared) > 1 else 'is'} not declared at all." if undeclared else "")
    return f"""**Empty splits.** These splits have no rows in this build:

{items}

Their parquet files are in the folder, with the schema below, but they are not declared in the `configs:` of
this card: `datasets` 5.2.0 cannot load a split with no rows (`{EMPTY_SPLIT_ERROR}`).{whole} Read one with
`pyarrow.parquet.read_table("qrels/train.parquet")` to get its (empty) table. examples/load.py skips them.
"""


def _provides(rows: dict, d: dict, msmarco: bool) -> str:
    keyed = ("keyed by the original MS MARCO query and passage IDs" if msmarco else
             "keyed by the query and passage ids of that corpus")
    train, dev = rows["qrels/train"], rows["qrels/dev"]
    if train and dev:
        return (f"It provides {n(train)} training-positive pairs and {n(dev)} strict-positive pairs covering "
                f"{n(d['strict_queries'])} development queries, {keyed}.")
    parts = []
    if train:
        parts.append(f"It provides {n(train)} training-positive pairs, {keyed}; this build has no strict "
                     "development positive (no dev pair got grade 3).")
    elif dev:
        parts.append(f"It provides {n(dev)} strict-positive pairs covering {n(d['strict_queries'])} development "
                     f"queries, {keyed}; this build has no training positive (no proposal got grade 2-3 with a "
                     "finite WOOD score).")
    else:
        parts.append(f"This build has no training positive and no strict development positive: no proposal got "
                     f"the grades they need (see Empty splits below). Its graded pairs are in judgments, {keyed}.")
    return " ".join(parts)


def render(stats: dict, version: str, repo_id: str, identity: dict, inputs: dict, batch_descriptions: dict,
           config: dict, llm_failures: dict | None = None, audit: dict | None = None) -> str:
    """The card. `config`: the config used (MANIFEST.json's `config`): its doubting and retrieval sections;
    `audit`: MANIFEST.json's `audit`, or None when no audit was run."""
    settings = card_settings(config)
    dense_model = config["retrieval"]["dense"]["model"]
    t, d = stats["splits"]["train"], stats["splits"]["dev"]
    rows = stats["rows"]
    msmarco = settings["ids_refer_to"] == MSMARCO_V1
    configs = declared_configs(rows)
    default_config = next(iter(configs), None)
    excluded = t["excluded"]
    heldout, repeat = excluded.get("heldout", 0), excluded.get("repeat", 0)
    n_collection_passages = inputs.get("rows", {}).get("collection")
    n_dev_file = inputs.get("rows", {}).get("dev_queries")
    model = model_name(identity)
    fallback_none = t["selected_none"]
    failures_train, failures_dev = t["grading_failure_count"], d["grading_failure_count"]
    src = "MS MARCO " if msmarco else ""
    official = "official MS MARCO positive" if msmarco else "official positive of the input qrels"
    collection, train_q, dev_q = settings["collection"], settings["train_queries"], settings["dev_queries"]
    corpus = settings["corpus_description"]

    def from_package(path):
        """An input path of the build config as the package folder reaches it (the card's commands run there)."""
        return path if os.path.isabs(path) else os.path.relpath(path, settings["package_dir"])

    def label(config, split):
        return f"{config} (default)" if config == default_config and split == configs[config][0] else config

    contents = _table(["Config", "Split", "Rows", "One row is"], [
        [label("qrels", "train"), "train", n(rows["qrels/train"]),
         "a training positive: an agent-proposed passage with grade 2 or 3 and a finite WOOD score"],
        [label("qrels", "dev"), "dev", n(rows["qrels/dev"]), "a strict development positive: grade 3"],
        [label("judgments", "train"), "train", n(rows["judgments/train"]),
         f"a graded pair: {n(t['agent_pairs'])} agent proposals and {n(t['official_rows'])} official positives"],
        [label("judgments", "dev"), "dev", n(rows["judgments/dev"]),
         f"a graded pair: {n(d['agent_pairs'])} agent proposals and {n(d['official_rows'])} official positives "
         "the agent did not propose"],
        [label("train_queries", "train"), "train", n(rows["train_queries/train"]),
         "a query of the training collection, with counts and its selected training positive"],
        [label("dev_queries", "dev"), "dev", n(rows["dev_queries/dev"]),
         "a development query, with counts and its strict-subset flag"],
        [label("generated_answers", "train"), "train", n(rows["generated_answers/train"]),
         "the model-generated answer used to compute WOOD for that query"],
    ])
    schema = schema_table(column_meanings(t, official))

    assigned = t["assigned"]
    dev_set = 'the MS MARCO dev set ("dev small")' if msmarco else f"the dev query file {dev_q}"
    dev_scope = (f"All {n(d['queries'])} queries of {dev_set}."
                 if n_dev_file is None or n_dev_file == d["queries"] else
                 f"{n(d['queries'])} of the {n(n_dev_file)} queries of {dev_set}, a deterministic sample.")
    no_pos = (f" {n(fallback_none)} queries have neither a qualifying pair nor an official positive; their "
              "positive_id and positive_source are null." if fallback_none else "")
    dropped = inputs.get("qrels_dropped", {})
    dropped_text = (f" {n(dropped.get('train', 0))} train and {n(dropped.get('dev', 0))} dev qrels rows were left out "
                    "of every stage because their passage is not in the collection (doubting.qrels_missing_passages: "
                    "drop; inputs.json, qrels_dropped)." if any(dropped.values()) else "")
    failures = (f"{n(failures_train)} train and {n(failures_dev)} dev grading calls failed after retries; those "
                "pairs have no grade, are not in judgments, and are listed in MANIFEST.json (grading_failures).")
    collection_size = (f"{n(n_collection_passages)} passages in the collection this release was built from; "
                       if n_collection_passages else "")
    what = ("A cleaner, more densely annotated MS MARCO resource for training and evaluating passage retrievers."
            if msmarco else
            f"Graded relevance annotations in the format of the Doubting MS MARCO release, built by its workflow from "
            f"{corpus + ': ' if corpus else ''}the passages of `{collection}` and the queries of `{train_q}` and "
            f"`{dev_q}`. This is not MS MARCO: the ids are those of these files.")
    paper = settings["paper"]
    paper_line = f" The annotations accompany the paper {paper}." if paper else ""
    search = f"lexical (BM25) and dense ({dense_model}) retrieval"
    text_source = "your own copy of MS MARCO" if msmarco else "the corpus files they come from"

    load_lines = []
    if "qrels" in configs:
        splits = configs["qrels"]
        load_lines.append(f'qrels = load_dataset(repo, "qrels"){" " * 30}# DatasetDict with {" and ".join(splits)}')
    if "dev" in configs.get("judgments", []):
        load_lines.append('dev_judgments = load_dataset(repo, "judgments", split="dev")')
    if "train_queries" in configs:
        load_lines += ['train_queries = load_dataset(repo, "train_queries", split="train")',
                       'selected = train_queries.filter(lambda r: r["positive_source"] == "wood")']
    loading = "\n".join(load_lines)

    if msmarco:
        joining = f"""The ids refer to the MS MARCO passage ranking v1 collection ({collection_size}the ids of
collection.tsv, of ir_datasets msmarco-passage and of BEIR msmarco), its training queries and its "dev small" set.
Obtain the text from the original source under its terms, for example:

```python
import ir_datasets
docs = ir_datasets.load("msmarco-passage").docs_store()
queries = {{q.query_id: q.text for q in ir_datasets.load("msmarco-passage/dev/small").queries_iter()}}
dev_judgments = load_dataset(repo, "judgments", split="dev")
row = dev_judgments[0]
print(queries[row["query_id"]], "|", docs.get(row["passage_id"]).text)
```

examples/join_text.py does the same from the official TSV files (collection.tsv, queries.train.tsv,
queries.dev.small.tsv) and needs only pyarrow; for the judgments config it keeps the origin column, because one pair
can carry both an agent grade and an official-positive grade."""
    else:
        sha = inputs.get("files", {}).get(collection, {}).get("sha256")
        size = f"{n(n_collection_passages)} passages, " if n_collection_passages else ""
        digest = f"sha256 {sha[:16]}..." if sha else "its sha256 is in MANIFEST.json"
        about = f": {corpus}" if corpus else ""
        joining = f"""The ids refer to the corpus in `doubting.collection` of the build config{about}: the passage ids
of `{collection}` ({size}{digest}), the query ids of `{train_q}` and `{dev_q}`. They are not MS MARCO ids:
joining them with MS MARCO (ir_datasets msmarco-passage, BEIR msmarco) would attach unrelated passages.
examples/join_text.py joins them with those files and needs only pyarrow; for the judgments config it keeps the
origin column, because one pair can carry both an agent grade and an official-positive grade. From this folder, as
built (the paths relative to it):

```
python examples/join_text.py --config judgments --split dev --collection {from_package(collection)} \\
    --queries {from_package(dev_q)} --out dev_judgments_text.parquet
```"""
    license_id, license_note = settings["license"], settings["license_note"]
    no_strict = ("" if d["strict_queries"] else " This build has no strict dev pair: trec/dev.strict.qrels is empty, "
                 "and evaluate.py says so and exits with an error.")

    text = f"""{repo_id}

# {TITLE} ({version})

{what} {_provides(rows, d, msmarco)} A search agent driven by a frozen LLM ({model}) combines {search} with adaptive
query reformulation to discover additional answer passages. Separate calls to the same model assess each proposed
passage and every official positive.{paper_line}

The package holds ids and annotations only. It contains no query or passage text; join the ids with
{text_source} (see below). This is release {version}: its files are frozen by the checksums in SHA256SUMS, and a
later release that changes any content will carry a new version.

## Contents

{contents}

{empty_splits_text(rows, configs, t, d)}
Companion files: trec/dev.strict.qrels (the strict development qrels in TREC format), ids/ (the training collection,
the excluded training ids with the reason, all development ids and the strict development subset:
ids/train_collection.txt, ids/train_excluded.tsv, ids/dev_all.txt, ids/dev_strict.txt), examples/, MANIFEST.json
(version, row counts, source and code checksums), croissant.json (Croissant 1.0 metadata) and SHA256SUMS.

## Coverage

**Train.** The collection has {n(t['queries'])} {src}training queries: the {n(assigned)} queries assigned for
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
- Official {src}positives, graded separately: {n(t['official_rows'])} pairs (grades
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

{failures}{dropped_text}

{llm_failures_text(llm_failures)}

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
  grades also see the {src}reference answer as a fallible hint and accept other correct answers (grading =
  answer_hinted). Official positives were graded by the same rule as the agent's proposals of the same split. Train
  and dev grades therefore come from different settings and are not directly comparable.
- WOOD (Weighted Output Odds Differential; training only). The model writes a short answer from up to three proposed
  passages. WOOD of a passage is the mean gain in log-likelihood of that answer's tokens when the passage is given,
  compared with the query alone. The generated answers are in generated_answers; they are model output derived from
  passages, not {src}reference answers.
- Selected positive. The highest finite WOOD among the query's grade 2-3 proposals (ties: the higher grade, then the
  earlier agent_rank); when no proposal qualifies, a deterministic official positive: the one whose own official
  grade is highest (an ungraded one ranks last), then the highest {src}relevance, then the smallest passage_id
  as a string.
- Development set (acquisition_batch): {_batches(d['acquisition_batches'], batch_descriptions.get('dev', {}))}
- Acquisition batches (train): {_batches(t['acquisition_batches'], batch_descriptions.get('train', {}))}

## Label audit

{audit_text(audit)}

## Schema

All ids are strings exactly as in {'MS MARCO' if msmarco else 'the corpus files'}. Grades are integers 0-3. Null
means "not available", never zero.

{schema}

## Loading

```python
from datasets import load_dataset

repo = "{repo_id}"  # a local copy of the folder works as well
{loading}
```

examples/load.py prints a few rows of every config and split that has rows. Large splits can be streamed with
streaming=True.

**Rebuilt a folder in place?** `datasets` caches what it loads from a local folder under a key made of the
folder and the card's `configs:`, not of the files' content: for a folder rebuilt in place with the same
configs it returns the rows of the earlier build (measured with datasets 5.2.0). Pass
`download_mode="force_redownload", verification_mode="no_checks"` (force_redownload alone fails with
NonMatchingSplitsSizesError when a row count changed; no_checks alone still returns the old rows), or a fresh
`cache_dir=`, or load with `streaming=True`, which reads the files themselves.

## Joining the original text

{joining}

## Evaluating on the strict dev qrels

```
python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec
python examples/evaluate.py --qrels trec/dev.strict.qrels --run my_run.trec --per-query per_query.tsv
python examples/evaluate.py --export-train-qrels train.qrels --package .   # TREC qrels from the qrels train split
```

evaluate.py reports MRR@10, nDCG@10 and Recall@100 over the {n(d['strict_queries'])} queries of the strict subset, a
query missing from the run counting 0, the usual convention for queries without a relevant pair; ids/dev_all.txt
lists all {n(d['queries'])}. Relevant means grade >= 2, the release's convention (`--min-rel`; every pair of the
strict qrels has grade 3, of the train qrels 2 or 3); nDCG uses the grade as gain. `--per-query` writes each query's
scores. It exits with an error when no query of the qrels has a relevant pair or none is in the run. Unjudged
passages count as non-relevant, as in standard practice; they are not verified negatives.{no_strict}

## License

`license: {license_id}`. {license_note}

## Citation

{f"Paper: {paper}. The citation entry will be added with the paper." if paper else
 "No paper accompanies this build; cite the release by its repository id and version."}
"""
    return yaml_header(TITLE, configs, license_id) + "\n" + text
