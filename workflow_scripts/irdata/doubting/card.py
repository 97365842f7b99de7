"""The dataset card (README.md) of the package: templates/card/README.md.tmpl filled from MANIFEST.json.

Follows the structure and wording of spec/doubting-ms-marco.card.txt. The text is the template; this
module computes what fills it, all from the build: every number from the manifest's counts and rows
(stats.json of assemble) or inputs.json, none typed in; the model from the recorded LLM identity; the
grading of each split from the grading-mode registry (irdata.annotate.grading.GRADING_MODES) for the
modes the config used; the agent's budgets, the corpus, the ids, the license and the paper from the
config used (`annotation.agent`, `doubting.ids_refer_to`, `corpus_description`, `license`,
`license_note`, `paper`). The YAML front matter is hub_metadata.py; a split with no rows is left out
of its `configs:` and the card names it and says why. The Schema table's columns and types are
generated from assemble.SCHEMAS.
"""

from __future__ import annotations

import os

from ..card_text import count, counted, decimal, fill, loading_head, md_table, median, part
from ..downstream.compare import card_section
from ..grade_scale import GRADES
from ..grading_modes import GRADING_MODES
from ..query_text import RULE_TEXT
from ..sources.base import CardWords
from . import baseline_run
from .assemble import CONFIG_SPLITS, DATA_FILES, TREC_GRADED, TREC_STRICT
from .card_parts import (
    audit_grades_from,
    audit_text,
    column_meanings,
    heldout_texts,
    human_audit_text,
    llm_failures_text,
    schema_table,
)
from .hub_metadata import declared_configs, front_matter
from .own_runs import own_run_name

MSMARCO_V1 = "msmarco-v1"
# the keys of the config's `doubting` section the card reads (schemas/doubting.schema.yaml) beside its source's, which
# say what the build was made from (irdata/sources/: CardWords)
CARD_KEYS = ("ids_refer_to", "corpus_description", "license", "license_note", "paper", "package_dir", "title", "on_hub")


def card_settings(config: dict) -> dict:
    """The settings the card reads, from the config used (its `doubting` section)."""
    doubting = config["doubting"]
    return {key: doubting.get(key) for key in CARD_KEYS}


def _grades(hist: dict) -> str:
    return ", ".join(f"{g}: {count(hist[str(g)])}" for g in GRADES)


def _batches(counts: dict, descriptions: dict) -> str:
    parts = []
    for name, queries in counts.items():
        if not queries:
            continue
        d = descriptions.get(name) or ""
        parts.append(f"{name}: {counted(queries, 'query', 'queries')}" + (f", {d}" if d else ""))
    return "; ".join(parts) + "."


def model_name(identity: dict) -> str:
    model = identity.get("model")
    if isinstance(model, dict):
        model = model.get("name") or model.get("id")
    return str(model) if model else "(model identity not recorded)"


def _empty_reason(config: str, split: str, t: dict, d: dict) -> str:
    if config == "qrels" and split == "train":
        return (f"no agent proposal got grade 2 or 3 with a finite WOOD score (grades of the "
                f"{counted(t['agent_pairs'], 'proposal')}: {_grades(t['agent_grades'])})")
    if config == "qrels":
        return f"no pair of the {counted(d['judgments'], 'dev judgment')} got grade 3"
    if config == "judgments":
        s = t if split == "train" else d
        return (f"no pair was graded ({counted(s['agent_pairs'], 'agent proposal')}, "
                f"{counted(s['grading_failure_count'], 'failed grading call')})")
    if config == "generated_answers":
        return "no answer was generated: no query has an agent proposal, or every answer call failed"
    return f"the {split} query list is empty"


def empty_split_error(split: str) -> str:
    """What datasets 5.2.0 raises when asked for the split `split` with no rows."""
    return f'Instruction "{split}" corresponds to no data!'


def empty_splits_text(rows: dict, configs: dict, t: dict, d: dict) -> str:
    """The Empty splits paragraph: only the splits without rows, each with why, and how to read them."""
    empty = [(c, s) for c, s in CONFIG_SPLITS if not rows[f"{c}/{s}"]]
    if not empty:
        return ""
    items = "\n".join(f"- {c}/{s}: {_empty_reason(c, s, t, d)}." for c, s in empty)
    undeclared = [c for c in dict.fromkeys(c for c, _ in CONFIG_SPLITS) if c not in configs]
    whole = (f" The config{'s' if len(undeclared) > 1 else ''} {', '.join(undeclared)} therefore "
             f"{'are' if len(undeclared) > 1 else 'is'} not declared at all." if undeclared else "")
    words = ({"these": "This split has", "files": "Its parquet file is", "declared": "it is not declared",
              "one": "it", "them": "it"} if len(empty) == 1 else
             {"these": "These splits have", "files": "Their parquet files are", "declared": "they are not declared",
              "one": "one", "them": "them"})
    return fill(__file__, "empty_splits.md.tmpl", {**words, "items": items, "error": empty_split_error(empty[0][1]),
                                                   "whole": whole, "path": DATA_FILES[empty[0]]})


def _provides(rows: dict, d: dict, msmarco: bool, unverified: bool) -> str:
    """The opening's count of positives; `unverified`: nothing shows the labels mean something (labels_unverified),
    so the counts are the model's grades, said as such."""
    keyed = ("keyed by the original MS MARCO query and passage IDs" if msmarco else
             "keyed by the query and passage ids of that corpus")
    provides = "By its model's unverified grades it provides" if unverified else "It provides"
    train, dev = rows["qrels/train"], rows["qrels/dev"]
    train_pairs = counted(train, "training-positive pair")
    covered = counted(d["strict_queries"], "development query", "development queries")
    strict = f"{counted(dev, 'strict-positive pair')} covering {covered}"
    if train and dev:
        return f"{provides} {train_pairs} and {strict}, {keyed}."
    if train:
        return (f"{provides} {train_pairs}, {keyed}; this build has no strict development positive (no dev pair got "
                "grade 3).")
    if dev:
        return (f"{provides} {strict}, {keyed}; this build has no training positive (no proposal got grade 2-3 with "
                "a finite WOOD score).")
    return (f"This build has no training positive and no strict development positive: no proposal got the grades "
            f"they need (see Empty splits below). Its graded pairs are in judgments, {keyed}.")


def without_agent_text(n: int) -> str:
    """The train queries without an agent row, and where they are."""
    if not n:
        return "Every query has an agent row."
    if n == 1:
        return ("1 query has no agent row. It stays in train_queries with agent_row = false and zero agent counts; "
                "its official positives are graded and one of them is its selected fallback positive.")
    return (f"{count(n)} queries have no agent row. They stay in train_queries with agent_row = false and zero agent "
            "counts; their official positives are graded and one of them is the selected fallback positive.")


def nonstrict_text(d: dict) -> str:
    """The dev queries without a grade-3 pair, why, and where they are."""
    n = d["queries"] - d["strict_queries"]
    if not n:
        return "Every dev query has a grade-3 pair."
    return (f"The other {counted(n, 'query has', 'queries have')} no grade-3 pair: "
            f"{counted(d['nonstrict_with_agent'], 'has', 'have')} graded proposals none of which received grade 3, and "
            f"{counted(d['nonstrict_without_agent'], 'has', 'have')} no agent proposal. "
            f"{'It remains' if n == 1 else 'They remain'} in dev_queries (strict_subset = false) and in "
            "ids/dev_all.txt; a missing grade 3 does not show that no answering passage exists.")


def rows_by_key(manifest_rows: dict) -> dict[str, int]:
    """MANIFEST.json's {config: {split: n}} as {"config/split": n}, in card order."""
    return {f"{c}/{s}": manifest_rows.get(c, {}).get(s, 0) for c, s in CONFIG_SPLITS}


def grading_texts(config: dict, src: str) -> tuple[str, str, str]:
    """What the grading calls of each split saw (the registry's descriptions of the modes the config used; `src`:
    "MS MARCO " where the ids are MS MARCO's): the Grades sentences, whether train and dev are comparable, and the
    Schema's meaning of `grading`."""
    # the modes the build ran, checked when it was planned (irdata.grading_modes.grading_mistakes)
    modes = {split: GRADING_MODES[config["annotation"]["grading"][split]] for split in ("train", "dev")}
    names = {"train": "Training", "dev": "Development"}
    sees = " ".join(f"{names[split]} grades see {mode.description.format(src=src)} (grading = {mode.name})."
                    for split, mode in modes.items())
    if modes["train"].name == modes["dev"].name:
        return (sees, "Train and dev grades come from the same setting.",
                f"{modes['train'].name} (the grading mode; the same on train and dev)")
    return (sees, "Train and dev grades therefore come from different settings and are not directly comparable.",
            f"{modes['train'].name} (train) or {modes['dev'].name} (dev)")


def budgets_text(config: dict, t: dict, d: dict) -> str:
    """The agent's proposal budgets (annotation.agent.<split>.max_proposals) and the longest lists it made."""
    agent = config["annotation"]["agent"]
    return (f"A proposal list may hold {counted(agent['dev']['max_proposals'], 'passage')} per query on the "
            f"development run and {count(agent['train']['max_proposals'])} on train "
            f"(annotation.agent.<split>.max_proposals); the longest reach {count(d['max_agent_rank'])} and "
            f"{count(t['max_agent_rank'])}.")


DEFAULT_MIN_REL = 2  # examples/evaluate.py's default: the release's convention


def evaluation_qrels(trec: dict) -> tuple[str, int] | None:
    """The qrels file and --min-rel that evaluate.py can score on this build (MANIFEST.json's trec counts):
    the strict qrels when they have a pair, else the graded ones at the highest level with a pair (the
    release's convention, grade >= 2, when it has one); None when no dev pair has a positive grade."""
    if trec[TREC_STRICT]["lines"]:
        return TREC_STRICT, DEFAULT_MIN_REL
    by_grade = trec[TREC_GRADED].get("queries_min_grade", {})
    levels = [g for g in range(DEFAULT_MIN_REL, 0, -1) if by_grade.get(str(g))]
    return (TREC_GRADED, levels[0]) if levels else None


# the user's run and what the card's commands write: files of the user's, outside the release folder, which
# holds exactly what SHA256SUMS lists
USER_RUN = "~/my_run.trec"
USER_OUT = {"per_query": "~/per_query.tsv", "train_qrels": "~/train.qrels",
            "joined": "~/dev_judgments_text.parquet"}


def evaluation_commands(trec: dict) -> str:
    """The card's evaluate.py commands: only ones that run on this build, with the reason at the commands
    when the strict qrels are empty. They read the user's run and write nothing into the release folder."""
    chosen = evaluation_qrels(trec)
    export = (f"python examples/evaluate.py --export-train-qrels {USER_OUT['train_qrels']} --package .   "
              "# TREC qrels from the qrels train split")
    lines = []
    if chosen is None:
        lines += [f"# this build has no dev pair of grade 1 or more: {TREC_STRICT} is empty and evaluate.py exits",
                  f"# with an error on it and on {TREC_GRADED} (no query has a relevant pair to score)"]
        return "\n".join([*lines, export])
    qrels, min_rel = chosen
    flag = "" if min_rel == DEFAULT_MIN_REL else f" --min-rel {min_rel}"
    if qrels == TREC_GRADED:
        lines += [f"# this build has no strict pair (no dev pair got grade 3): {TREC_STRICT} is empty and",
                  "# evaluate.py exits with an error on it; these score the graded qrels"
                  + (f", grade >= {min_rel} relevant:" if flag else ":")]
    lines += [f"python examples/evaluate.py --qrels {qrels} --run {USER_RUN}{flag}",
              f"python examples/evaluate.py --qrels {qrels} --run {USER_RUN}{flag} --per-query {USER_OUT['per_query']}"]
    if qrels == TREC_STRICT:
        lines.append(f"python examples/evaluate.py --qrels {TREC_GRADED} --run {USER_RUN}")
    lines += [f"python examples/evaluate.py --qrels {qrels} --run examples/bm25_dev.trec{flag}   # the BM25 baseline",
              export]
    return "\n".join(lines)


def no_strict_text(trec: dict) -> str:
    """What the MRR@10 and Recall@100 bullet adds when the strict qrels are empty."""
    if trec[TREC_STRICT]["lines"]:
        return ""
    chosen = evaluation_qrels(trec)
    text = (f" This build has no strict dev pair: {TREC_STRICT} is empty, and evaluate.py says so and exits with "
            "an error.")
    if chosen is None:
        return text + " No dev pair has a grade above 0 either, so no qrels of this build can score a run."
    _, min_rel = chosen
    if min_rel == DEFAULT_MIN_REL:
        return text + f" The commands above score {TREC_GRADED} instead, grade-2 pairs relevant (below)."
    by_grade = trec[TREC_GRADED]["queries_min_grade"]
    return (text + f" No dev pair has grade 2 either: the commands above score {TREC_GRADED} with --min-rel "
            f"{min_rel}, which counts grade-1 pairs (marginally related) as relevant, over the "
            f"{counted(by_grade[str(min_rel)], 'query', 'queries')} with such a pair: not the release's convention, "
            "and not comparable with scores at grade >= 2.")


def bm25_run_text(config: dict, d: dict, run: dict, trec: dict) -> str:
    """examples/bm25_dev.trec as MANIFEST.json counts it (`baseline_run`, counted from the file)."""
    bm25 = config["retrieval"]["bm25"]
    params = ", ".join(f"{k} = {bm25[k]}" for k in sorted(bm25))
    depth, with_lines = run["depth"], run["queries_with_lines"]
    lines = (f"the BM25 ranking (run tag {baseline_run.RUN_TAG}) of the "
             f"{counted(d['queries'], 'development query', 'development queries')} by the agent's BM25 index (bm25s, "
             f"{params}), searched with the query text: at most {counted(depth, 'passage')} a query, those that share "
             f"a term with it. It has {counted(run['lines'], 'line')} on {counted(with_lines, 'query', 'queries')}")
    if with_lines:
        short = with_lines - run["queries_at_depth"]
        lines += (f"; {counted(run['queries_at_depth'], 'has', 'have')} {depth}" +
                  (f", {count(short)} fewer (the fewest {count(run['fewest_lines'])}: fewer passages share a term "
                   f"with {'it' if short == 1 else 'them'})" if short else ""))
    missing = d["queries"] - with_lines
    if missing:
        lines += f"; {counted(missing, 'has', 'have')} no line (no query term is in the index)"
    chosen = evaluation_qrels(trec)
    scores = ("No command above scores it: no dev pair of this build has a grade above 0." if chosen is None else
              f"`--qrels {chosen[0]} --run examples/bm25_dev.trec` above scores it; compare your own run with it the "
              "same way.")
    return f"{lines}. {scores}"


# Cohen's kappa below this is at best "slight" agreement (Landis and Koch, 1977): the labels then say nothing
KAPPA_SLIGHT = 0.2


def _modal(hist: dict[str, int]) -> tuple[str, int, int]:
    """(the commonest grade, its count, the total) of a grade histogram."""
    grade = max(hist, key=lambda g: (hist[g], g))
    return grade, hist[grade], sum(hist.values())


def labels_unverified(audit: dict | None) -> bool:
    """Whether nothing in the build shows its labels to agree with graded judgments: no label audit, or one whose
    kappa is undefined or below KAPPA_SLIGHT."""
    return audit is None or audit["kappa_linear"] is None or audit["kappa_linear"] < KAPPA_SLIGHT


def no_audit_warning(model: str) -> str:
    """The card's first lines of a build without a label audit: that its labels' agreement is not measured, and
    the config keys that measure it, before anything the labels seem to say."""
    return (f"**The labels of this build are not measured.** No label audit was run (doubting.audit.qrels is null): "
            f"how well its model ({model}) grades these pairs is unknown, so its grades, and the positives selected "
            "from them, rest on the model's word alone. To measure it, set doubting.audit.qrels (graded judgments "
            "of held-out queries, TREC qrels with grades 0-3) and doubting.audit.queries (their text) in the build's "
            "config (under builds.<name>.audit for a named build) and build again: the same model and grading path "
            "grade those pairs, and the card then opens with their Cohen's kappa.\n\n")


def label_warning(manifest: dict, model: str) -> str:
    """The card's first lines where nothing shows that the labels mean something: no label audit (no_audit_warning),
    or one that shows they mean nothing (kappa below KAPPA_SLIGHT, as the demo's 135M model gets): the numbers
    that show it, before anything the labels seem to say."""
    audit = manifest.get("audit")
    if audit is None:
        return no_audit_warning(model)
    if not labels_unverified(audit):
        return ""
    source = audit_grades_from(audit)
    kappa = "undefined" if audit["kappa_linear"] is None else f"{audit['kappa_linear']:.3f}"
    audit_grade, audit_n, audit_total = _modal({str(g): sum(row[g] for row in audit["confusion"]) for g in GRADES})
    counts = manifest["counts"]
    proposals = {str(g): sum(counts[split]["agent_grades"][str(g)] for split in ("train", "dev")) for g in GRADES}
    grade, n, total = _modal(proposals)
    text = (f"**The labels of this build mean nothing.** Its model ({model}) does not grade usefully here: against "
            f"the label audit's {counted(audit_total, 'pair')} with {source} grades its Cohen's kappa is {kappa} "
            f"(linear weights; below {KAPPA_SLIGHT} is at best slight agreement); it gave grade {audit_grade} to "
            f"{count(audit_n)} of those {counted(audit_total, 'pair')}")
    if total:
        text += f" and grade {grade} to {count(n)} of the {counted(total, 'graded proposal')}"
    ranking = audit.get("system_ranking")
    random_run = next((r for r in (ranking or {}).get("runs", []) if r["name"] == own_run_name("random")), None)
    if random_run is not None:
        measure = "nDCG@10"
        place = 1 + sum(r["model"][measure] > random_run["model"][measure] for r in ranking["runs"])
        text += (f"; under its grades the random run ranks {count(place)} of {count(len(ranking['runs']))} by "
                 f"{measure}")
    return text + (". What this build shows is what each stage of the workflow does, not what its labels say; "
                   "a model that grades well (the audit's kappa says) is what makes them mean something.\n\n")


def agent_text(agent: dict | None, model: str, search: str) -> str:
    """What the search agent did, from its counts (MANIFEST.json `agent`): a search that copied the prompt's
    example query is counted as such, never as a reformulation."""
    intro = f"A search agent driven by a frozen LLM ({model}) searched {search}"
    if not agent:
        return intro + " and proposed answer passages."
    total = {key: sum(split[key] for split in agent.values()) for key in next(iter(agent.values()))}
    searches, reformulations, copies = total["searches"], total["reformulations"], total["example_copies"]
    if searches:
        what = [f"{count(reformulations)} reformulated the query" if reformulations else "none reformulated the query"]
        if copies:
            what.append(f"{count(copies)} copied the prompt's example query")
        if searches - reformulations - copies:  # the query itself again
            what.append(f"{count(searches - reformulations - copies)} repeated it")
        asked = (f"Beyond each query's first search, the model asked for {counted(searches, 'search', 'searches')}: "
                 f"{', '.join(what)}.")
    else:
        asked = "The model asked for no search beyond each query's first."
    return (f"{intro} and proposed {counted(total['proposals'], 'answer passage')} for "
            f"{count(total['with_proposals'])} of its {counted(total['queries'], 'query', 'queries')}. {asked}")


def render(manifest: dict, inputs: dict, batch_descriptions: dict, words: CardWords) -> str:
    """The card of the release `manifest` (MANIFEST.json's content); `inputs`: inputs.json; `words`: what it says
    of the build's source (irdata.sources.registry.card_words)."""
    config = manifest["config"]
    settings = card_settings(config)
    dense_model = config["retrieval"]["dense"]["model"]
    t, d = manifest["counts"]["train"], manifest["counts"]["dev"]
    rows = rows_by_key(manifest["rows"])
    version, repo_id = manifest["version"], manifest["name"]
    msmarco = settings["ids_refer_to"] == MSMARCO_V1
    configs = declared_configs(rows)
    default_config = next(iter(configs), None)
    excluded = t["excluded"]
    corpus = settings["corpus_description"]
    heldout_by_source, heldout_sources = heldout_texts(t, inputs, words)
    n_collection_passages = inputs.get("rows", {}).get("collection")
    n_dev_file = inputs.get("rows", {}).get("dev_queries")
    model = model_name(manifest["llm"])
    src = "MS MARCO " if msmarco else ""
    official = "official MS MARCO positive" if msmarco else "official positive of the input qrels"
    collection = words.collection
    grading_sentences, grading_comparable, grading_column = grading_texts(config, src)

    def from_package(path):
        """An input path of the build config as the package folder reaches it (the card's commands run there)."""
        return path if os.path.isabs(path) else os.path.relpath(path, settings["package_dir"])

    def label(config, split):
        return f"{config} (default)" if config == default_config and split == configs[config][0] else config

    contents = md_table(["Config", "Split", "Rows", "One row is"], [
        [label("qrels", "train"), "train", count(rows["qrels/train"]),
         "a training positive: an agent-proposed passage with grade 2 or 3 and a finite WOOD score"],
        [label("qrels", "dev"), "dev", count(rows["qrels/dev"]), "a strict development positive: grade 3"],
        [label("judgments", "train"), "train", count(rows["judgments/train"]),
         f"a graded pair: {counted(t['agent_pairs'], 'agent proposal')} and "
         f"{counted(t['official_rows'], 'official positive')}"],
        [label("judgments", "dev"), "dev", count(rows["judgments/dev"]),
         f"a graded pair: {counted(d['agent_pairs'], 'agent proposal')} and "
         f"{counted(d['official_rows'], 'official positive')} the agent did not propose"],
        [label("train_queries", "train"), "train", count(rows["train_queries/train"]),
         "a query of the training collection, with counts and its selected training positive"],
        [label("dev_queries", "dev"), "dev", count(rows["dev_queries/dev"]),
         "a development query, with counts and its strict-subset flag"],
        [label("generated_answers", "train"), "train", count(rows["generated_answers/train"]),
         "the model-generated answer used to compute WOOD for that query"],
    ])

    # the dev queries the build read, as its source names them (a BEIR split's: the queries of its qrels file)
    dev_set = 'the MS MARCO dev set ("dev small")' if msmarco else words.dev_set
    dev_scope = ((f"The one query of {dev_set}." if d["queries"] == 1 else f"All {count(d['queries'])} queries of "
                  f"{dev_set}.") if n_dev_file is None or n_dev_file == d["queries"] else
                 f"{count(d['queries'])} of the {counted(n_dev_file, 'query', 'queries')} of {dev_set}, a "
                 "deterministic sample.")
    no_pos = (f" {counted(t['selected_none'], 'query has', 'queries have')} neither a qualifying pair nor an official "
              f"positive; {'its' if t['selected_none'] == 1 else 'their'} positive_id and positive_source are null."
              if t["selected_none"] else "")
    dropped = inputs.get("qrels_dropped", {})
    one_dropped = sum(dropped.values()) == 1
    dropped_text = (f" {count(dropped.get('train', 0))} train and {count(dropped.get('dev', 0))} dev qrels "
                    f"{'row was' if one_dropped else 'rows were'} left out of every stage because "
                    f"{'its' if one_dropped else 'their'} passage is not in the collection "
                    "(doubting.qrels_missing_passages: drop; inputs.json, qrels_dropped)."
                    if any(dropped.values()) else "")
    one_failed = t["grading_failure_count"] + d["grading_failure_count"] == 1
    failures = (f"{count(t['grading_failure_count'])} train and {count(d['grading_failure_count'])} dev grading "
                + ("call failed after retries; that pair has no grade, is not in judgments, and is listed in "
                   if one_failed else
                   "calls failed after retries; those pairs have no grade, are not in judgments, and are listed in ")
                + "MANIFEST.json (grading_failures).")
    collection_size = (f"{counted(n_collection_passages, 'passage')} in the collection this release was built from; "
                       if n_collection_passages else "")
    what = ("A cleaner, more densely annotated MS MARCO resource for training and evaluating passage retrievers."
            if msmarco else
            f"Graded relevance annotations in the format of the Doubting MS MARCO release, built by its workflow from "
            f"{words.origin}. This is not MS MARCO: the ids are those of these "
            f"{'files' if words.files else 'datasets'}.")
    paper = settings["paper"]

    load_lines = []
    if "qrels" in configs:
        splits = configs["qrels"]
        load_lines.append(f'qrels = load_dataset(repo, "qrels"){" " * 30}# DatasetDict with {" and ".join(splits)}')
    if "dev" in configs.get("judgments", []):
        load_lines.append('dev_judgments = load_dataset(repo, "judgments", split="dev")')
    if "train_queries" in configs:
        load_lines += ['train_queries = load_dataset(repo, "train_queries", split="train")',
                       'selected = train_queries.filter(lambda r: r["positive_source"] == "wood")']

    if msmarco:
        joining = part(__file__, "joining_msmarco.md.tmpl", {"collection_size": collection_size})
    else:
        sha = inputs.get("files", {}).get(collection, {}).get("sha256")
        size = f"{counted(n_collection_passages, 'passage')}, " if n_collection_passages else ""
        digest = (f"sha256 {sha[:16]}..." if sha else "its sha256 is in MANIFEST.json" if words.files
                  else "as its tool's cache holds it")
        about = f": {corpus}" if corpus else ""
        queries = " and ".join(f"`{q}`" for q in words.queries)
        # the join recipe reads files; a source of other inputs (ir_datasets ids) is joined with its own tools
        joining = part(__file__, "joining_corpus.md.tmpl" if words.files else "joining_ir_datasets.md.tmpl", {
            "key": words.join_key, "about": about, "collection": f"`{collection}`" if not words.files else collection,
            "size": size, "digest": digest, "queries": queries, "collection_path": from_package(collection),
            "queries_path": from_package(words.queries[-1]), "out": USER_OUT["joined"]})
    trec = manifest["trec"]
    graded = trec[TREC_GRADED]

    fields = {
        "repo_id": repo_id, "loading_head": loading_head(repo_id, settings["on_hub"], settings["package_dir"]),
        "title": settings["title"], "version": version, "what": what,
        "provides": _provides(rows, d, msmarco, labels_unverified(manifest.get("audit"))),
        "model": model, "label_warning": label_warning(manifest, model),
        "agent": agent_text(manifest.get("agent"), model, f"lexical (BM25) and dense ({dense_model}) indexes"),
        "paper_line": f" The annotations accompany the paper {paper}." if paper else "",
        "text_source": "your own copy of MS MARCO" if msmarco else "the corpus files they come from",
        "contents": contents, "empty_splits": empty_splits_text(rows, configs, t, d), "src": src,
        "train_queries": count(t["queries"]), "assigned": count(t["assigned"]),
        "heldout": count(excluded.get("heldout", 0)), "heldout_by_source": heldout_by_source,
        "heldout_sources": heldout_sources, "text_rule": RULE_TEXT,
        "repeat": count(excluded.get("repeat", 0)),
        "queries_with_agent_rows": counted(t["queries_with_agent_rows"], "query", "queries"),
        "train_agent_pairs": counted(t["agent_pairs"], "graded query-passage pair"),
        "queries_without_agent_rows": without_agent_text(t["queries_without_agent_rows"]),
        "train_agent_grades": _grades(t["agent_grades"]),
        "wood_null": counted(t["wood_null"], "proposal has", "proposals have"),
        "positive_pairs": counted(t["positive_pairs"], "pair"),
        "positive_queries": counted(t["positive_queries"], "query", "queries"),
        "positive_mean": decimal(t["positive_mean_per_query"], 2),
        "positive_median": median(t["positive_median_per_query"]),
        "agent_queries_without_positive": counted(t["agent_queries_without_positive"], "query has", "queries have"),
        "grade3_eligible_pairs": counted(t["grade3_eligible_pairs"], "pair"),
        "grade3_eligible_queries": counted(t["grade3_eligible_queries"], "query", "queries"),
        "grade3_agent_pairs": counted(t["grade3_agent_pairs"], "pair"),
        "train_official_rows": counted(t["official_rows"], "pair"),
        "train_official_grades": _grades(t["official_grades"]),
        "official_rows_also_proposed": counted(t["official_rows_also_proposed"], "such pair"),
        "selected_wood": count(t["selected_wood"]),
        "selected_fallback": counted(t["selected_fallback"], "official fallback"), "no_positive": no_pos,
        "dev_scope": dev_scope, "dev_judgments": counted(d["judgments"], "graded pair"),
        "dev_agent_pairs": counted(d["agent_pairs"], "agent proposal"),
        "dev_official_rows": counted(d["official_rows"], "official positive"),
        "dev_official_positives": counted(d["official_positives"], "official positive pair"),
        "strict_pairs": counted(d["strict_pairs"], "grade-3 pair"),
        "strict_queries": counted(d["strict_queries"], "query", "queries"),
        "strict_mean": decimal(d["strict_mean_per_query"], 2), "strict_median": median(d["strict_median_per_query"]),
        "dev_queries": count(d["queries"]), "nonstrict": nonstrict_text(d),
        "grading_failures": failures, "dropped": dropped_text, "llm_failures": llm_failures_text(manifest["failures"]),
        "budgets": budgets_text(config, t, d), "grading_modes": grading_sentences,
        "grading_comparable": grading_comparable,
        "dev_batches": _batches(d["acquisition_batches"], batch_descriptions.get("dev", {})),
        "train_batches": _batches(t["acquisition_batches"], batch_descriptions.get("train", {})),
        "audit": audit_text(manifest["audit"]) + "\n\n" + human_audit_text(manifest.get("human_audit")),
        "id_source": "MS MARCO" if msmarco else "the corpus files",
        "schema": schema_table(column_meanings(t, official, grading_column)), "loading": "\n".join(load_lines),
        "joining": joining, "no_strict": no_strict_text(trec), "evaluation": evaluation_commands(trec),
        "graded_pairs": counted(graded["lines"], "pair"),
        "graded_queries": counted(graded["queries_grade2"], "query", "queries"),
        "bm25_run": bm25_run_text(config, d, manifest["baseline_run"], trec),
        "downstream": card_section(manifest.get("downstream")),
        "license_id": settings["license"], "license_note": settings["license_note"],
        "citation": (f"Paper: {paper}. The citation entry will be added with the paper." if paper else
                     "No paper accompanies this build; cite the release by its repository id and version."),
    }
    return front_matter(settings["title"], rows, settings["license"]) + "\n" + fill(__file__, "README.md.tmpl", fields)
