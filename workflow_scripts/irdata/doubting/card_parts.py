"""The card's generated tables and paragraphs beside its prose (templates/README.md.tmpl): the
number formats, the Schema table (from assemble.SCHEMAS), the label audit and the LLM failures."""

from __future__ import annotations

import pyarrow as pa

from .assemble import SCHEMAS

TYPE_NAMES = {pa.string(): "string", pa.int8(): "int8", pa.int32(): "int32", pa.float64(): "float64",
              pa.bool_(): "bool"}


def n(x) -> str:
    return f"{int(x):,}"


def f2(x) -> str:
    return f"{x:.2f}"


def med(x) -> str:
    return f"{x:g}"


def md_table(header, rows) -> str:
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


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
                if failures.get("accepted_over_limit") else "")
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
    table = md_table(["", "model 0", "model 1", "model 2", "model 3"], rows)
    return (f"Label audit. {n(audit['pairs'])} human-judged pairs ({audit['qrels']}) were graded by the same model "
            f"and grading path as this release (grading = {audit['grading']}): Cohen's kappa "
            f"{fmt(audit['kappa_linear'])} (linear weights) and {fmt(audit['kappa_quadratic'])} (quadratic), exact "
            f"agreement {fmt(audit['exact_agreement'])}, binary agreement at grade >= 2 "
            f"{fmt(audit['binary_agreement_at_2'])}; "
            f"{n(audit['failures']['failed'])} pairs failed to grade and are left out"
            + (f", {n(audit['passages_missing'])} judged passages were not in the collection" if audit.get(
                "passages_missing") else "") + ".\n\n" + table)


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
    return md_table(["Config", "Column", "Type", "Meaning"], rows)
