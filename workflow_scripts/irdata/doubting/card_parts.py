"""The card's generated tables and paragraphs beside its prose (templates/card/README.md.tmpl): the
Schema table (from assemble.SCHEMAS), the held-out sources of the dedup, the label audit and the LLM failures."""

from __future__ import annotations

import pyarrow as pa

from ..card_text import count, counted, md_table
from .assemble import SCHEMAS

TYPE_NAMES = {pa.string(): "string", pa.int8(): "int8", pa.int32(): "int32", pa.float64(): "float64",
              pa.bool_(): "bool"}


def heldout_texts(t: dict, inputs: dict, words) -> tuple[str, str]:
    """The train exclusions by held-out source (MANIFEST.json counts.train.heldout_sources), as a parenthesis after
    their count, and a sentence naming every source the build held out (inputs.json `heldout_sources`; `words`: its
    source's CardWords, irdata/sources/)."""
    by_source = t.get("heldout_sources") or []
    parenthesis = (" (" + ", ".join(f"{count(s['queries'])} from `{s['key']}`" for s in by_source) + ")"
                   if len(by_source) > 1 else f" (from `{by_source[0]['key']}`)" if by_source else "")
    sources = inputs.get("heldout_sources") or []
    if not sources:
        return parenthesis, ""
    own, listed = words.heldout_own, words.heldout_listed
    named = "; ".join(f"{', '.join(f'`{k}`' for k in s['keys'])}: {s['file']} ({count(s['queries'])} "
                      f"{'query' if s['queries'] == 1 else 'queries'})" for s in sources)
    return parenthesis, (f"Held out, whether {listed} lists them or not, are the build's own evaluation queries "
                         f"({own}) with every file {listed} lists, each query under the first source holding "
                         f"it: {named}.")


def llm_failures_text(failures: dict | None) -> str:
    """One paragraph: how many units of each LLM stage and split failed, and why (MANIFEST.json `failures`)."""
    if failures is None:
        return ""
    parts = []
    for stage, record in failures["stages"].items():
        splits = []
        for split, f in record["splits"].items():
            kinds = ", ".join(f"{kind} {count(units)}" for kind, units in f["by_kind"].items())
            splits.append(f"{split} {count(f['failed'])} of {count(f['total'])} {f['units'] or 'units'}"
                          + (f" ({kinds})" if kinds else ""))
        parts.append(f"{stage}: " + ", ".join(splits))
    accepted = (" The build was published over the configured failure limits (accept_llm_failures)."
                if failures.get("accepted_over_limit") else "")
    return ("Units that ended without a label after retries, by stage and split (MANIFEST.json, failures; an "
            "agent episode also fails when it ends by breaking the tool protocol, kind protocol): "
            + "; ".join(parts) + "." + accepted + " A failed unit has no label: never a default grade or score.")


def audit_text(audit: dict | None) -> str:
    """The label audit's agreement (MANIFEST.json `audit`), or that there was none."""
    if audit is None:
        return ("No label audit was run for this build (doubting.audit.qrels is null): the grades' agreement with "
                "human judgments is not measured here; the top of this card says how to measure it.")
    def fmt(x):
        return "n/a" if x is None else f"{x:.3f}"
    source = audit_grades_from(audit)
    rows = [[f"{source} {g}", *(count(c) for c in row)] for g, row in enumerate(audit["confusion"])]
    table = md_table(["", "model 0", "model 1", "model 2", "model 3"], rows)
    not_human = ("" if source == "human" else
                 f" Their grades are {source} (doubting.audit.grades_from), not human judgments.")
    return (f"Label audit. {counted(audit['pairs'], 'pair')} with {source} grades ({audit['qrels']}) "
            f"{'was' if audit['pairs'] == 1 else 'were'} graded by the same model "
            f"and grading path as this release (grading = {audit['grading']}): Cohen's kappa "
            f"{fmt(audit['kappa_linear'])} (linear weights) and {fmt(audit['kappa_quadratic'])} (quadratic), exact "
            f"agreement {fmt(audit['exact_agreement'])}, binary agreement at grade >= 2 "
            f"{fmt(audit['binary_agreement_at_2'])}; "
            + counted(audit["failures"]["failed"], "pair failed to grade and is", "pairs failed to grade and are")
            + " left out"
            + (f", {counted(audit['passages_missing'], 'judged passage was', 'judged passages were')} not in the "
               "collection" if audit.get("passages_missing") else "") + "." + not_human + "\n\n" + table
            + ("\n\n" + system_ranking_text(audit["system_ranking"], source) if audit.get("system_ranking") else ""))


def audit_grades_from(audit: dict) -> str:
    """Who graded the audit's qrels (doubting.audit.grades_from; an audit recorded before the key: human)."""
    return audit.get("grades_from", "human")


# Kendall's tau at which two qrels are usually read as ranking systems equivalently (Voorhees, 2000)
TAU_EQUIVALENT = 0.9


def _tau_reading(corr: dict) -> str:
    """What a Kendall's tau says, from its value alone."""
    tau = corr["kendall_tau"]
    if tau is None:
        return "n/a"
    side = "at or above" if tau >= TAU_EQUIVALENT else "below"
    return f"{tau:.3f} ({side} {TAU_EQUIVALENT}; Spearman's rho {corr['spearman_rho']:.3f})"


def system_ranking_text(ranking: dict, source: str = "human") -> str:
    """The audit's system-ranking agreement (MANIFEST.json `audit.system_ranking`): what the numbers show."""
    runs = ranking["runs"]
    own = sum(r["source"] == "workflow" for r in runs)
    corr = ranking["correlation"]
    queries = ranking["queries"]
    text = (f"System ranking. {counted(len(runs), 'run')} ({count(own)} the workflow's own over the audit queries: "
            f"BM25, dense, their RRF fusion and a random run of passages drawn from the whole collection, the floor "
            f"any system should clear; {count(len(runs) - own)} "
            "from doubting.audit.runs) were evaluated with this release's examples/evaluate.py over the same judged "
            f"pool, the {counted(ranking['pairs'], 'graded audit pair')}, once under the {source} grades and once "
            "under the model's (a passage outside the pool counts as non-relevant under both; MRR@10 and Recall@100 "
            "count "
            f"grade >= {ranking['min_rel']} as relevant, nDCG@10 uses the grade as gain; "
            f"{counted(queries['human'], 'query has', 'queries have')} a pair of grade >= {ranking['min_rel']} under "
            f"the {source} grades, "
            f"{count(queries['model'])} under the model's). Kendall's tau between the two orderings of the runs: "
            + "; ".join(f"{m} {_tau_reading(corr[m])}" for m in ranking["measures"]) + ".")
    if queries["model"] == 0:
        text += (f" Under the model's grades no query has a pair of grade >= {ranking['min_rel']}: every run scores 0 "
                 "there, so these grades cannot order systems at all.")
    elif any(corr[m]["kendall_tau"] is None for m in ranking["measures"]):
        text += " n/a: fewer than 2 runs, or one of the two gives every run the same score (nothing to order)."
    if 1 < len(runs) < 10:
        # one swapped pair of runs moves tau by 2 / (number of pairs)
        text += (f" With {counted(len(runs), 'run')} one swapped pair moves tau by "
                 f"{4 / (len(runs) * (len(runs) - 1)):.2f}: a coarse measure.")
    header = ["run", *(f"{m} {label}" for m in ranking["measures"] for label in (source, "model"))]
    rows = [[f"`{r['name']}`", *(f"{r[side][m]:.3f}" for m in ranking["measures"] for side in ("human", "model"))]
            for r in runs]
    return text + "\n\n" + md_table(header, rows)


def _share(o: dict) -> str:
    if not o["items"]:
        return "none in the sample"
    if not o["judged"]:
        return f"none of its {counted(o['items'], 'item')} is judged yet"
    lo, hi = o["ci95"]
    answer = "fully answers" if o["fully_answers"] == 1 else "fully answer"
    return (f"{count(o['fully_answers'])} of {counted(o['judged'], 'judged item')} ({100 * o['share']:.1f}%, 95% "
            f"Wilson interval {100 * lo:.1f}-{100 * hi:.1f}%) {answer} the query, {count(o['not_judged'])} not yet "
            "judged")


def human_audit_text(h: dict | None) -> str:
    """The blinded human audit (MANIFEST.json `human_audit`): what its numbers show, nothing more."""
    if h is None:
        return ("No blinded human audit was run for this build (doubting.audit.human): whether the strict "
                "positives answer their queries more often than the official ones is not measured here.")
    s, o = h["origins"]["strict"], h["origins"]["official"]
    annotators = len(h["sheets"])
    train = h.get("split") == "train"
    ours, our = ("selected positives", "selected positive") if train else ("strict positives", "strict positive")
    split = "train" if train else "dev"
    drawn = counted(h["sample_queries"], f"{split} query was", f"{split} queries were")
    text = (f"Blinded human audit. {drawn} drawn at random; "
            f"each gave one official positive and, where the release has one, its {our} "
            f"({count(h['queries_with_strict'])} of them had one), shuffled into {counted(h['items'], 'item')} with "
            f"their origin hidden, for annotators to answer \"{h['question']}\" ({' / '.join(h['allowed'])}). "
            + (f"{counted(annotators, 'filled sheet was', 'filled sheets were')} read back (an item's label is the "
               "majority of its annotators, a tie is not \"yes\"). " if annotators
               else "No filled sheet is named yet (doubting.audit.human.sheets). ")
            + f"{ours.capitalize()}: {_share(s)}. Official positives: {_share(o)}.")
    if h["queries_with_strict"] == 0:
        text += (f" The release has no {our} for any sampled query, so this sample cannot compare {ours} "
                 "with official positives.")
    elif h["difference"] is not None:
        d, (lo, hi) = h["difference"]["strict_minus_official"], h["difference"]["ci95"]
        reading = ("the interval excludes 0" if lo > 0 or hi < 0 else
                   "the interval includes 0: this sample shows no difference")
        text += (f" Difference, {our.split()[0]} minus official: {100 * d:+.1f} points "
                 f"(95% interval {100 * lo:+.1f} to {100 * hi:+.1f}; {reading}).")
    else:
        text += " Until both origins have judged items there is no difference to report."
    agreement = h.get("agreement")
    if agreement is not None:
        kappa = "n/a" if agreement["kappa"] is None else f"{agreement['kappa']:.3f}"
        name = "Cohen's" if agreement["method"] == "cohen" else "Fleiss'"
        text += (f" Annotator agreement: {name} kappa {kappa} over the {counted(agreement['items'], 'item')} all "
                 "answered.")
    if h["missing_items"]:
        text += f" {counted(len(h['missing_items']), 'sampled item has', 'sampled items have')} no judgment yet."
    if h["judged_outside_sample"]:
        outside = counted(h["judged_outside_sample"], "judged item is no longer in the sample and is",
                          "judged items are no longer in the sample and are")
        text += f" {outside} left out."
    return text


def column_meanings(t: dict, official: str, grading: str) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Per config, groups of consecutive columns and what they mean; columns and types come from SCHEMAS."""
    return {
        "qrels": [(("query_id", "passage_id"), "the pair"), (("grade",), "2 or 3 on train, 3 on dev")],
        "judgments": [
            (("query_id", "passage_id"), "the pair; unique together with origin"),
            (("origin",), f"agent (proposed by the agent) or official ({official} graded on its own)"),
            (("grade",), "0-3"),
            (("grading",), grading),
            (("agent_rank",), "position in the agent's proposal list; null for official rows"),
            (("wood",), f"WOOD score; null for official rows, for dev, and for the "
                        f"{counted(t['wood_null'], 'train proposal')} without a finite score"),
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
    return md_table(["Config", "Column", "Type", "Meaning"], rows)
