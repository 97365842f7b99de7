"""The figures and tables of `snakemake --report`: what a build of each release holds.

A Doubting build, from the assembled stats.json, the assembled parquet files and the package's
MANIFEST.json: grade distributions (agent proposals vs official positives, per split), the WOOD
histogram, proposals per query, failure counts per stage, the label audit (kappa, confusion matrix,
the runs' scores under the reference and the model's grades as a scatter); from the agent_search jobs' stats and
proposals, the agent's behaviour (turns, constraint paths, searches, reformulations, protocol errors,
episode ends, proposals by rank and source).
44b Eval, from results.jsonl: the arm table and a chart of it. Figures are PNG (matplotlib, Agg
backend), tables small standalone HTML files, which the Snakemake report shows inline. A MANIFEST
key that a build does not record yet (`failures`, `audit`) is rendered as "not available".
Every figure and table of a Doubting build is titled with the build's title and labels each split with the
grading mode it was graded in (the rules' `settings`: irdata.doubting.stages), never with another build's.
"""

from __future__ import annotations

import base64
import html
import io

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend is chosen first
import numpy as np  # noqa: E402
import pyarrow.compute as pc  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from .atomic import atomic_path, write_text_atomic  # noqa: E402
from .card_text import counted
from .doubting.card_parts import audit_grades_from  # noqa: E402
from .grade_scale import GRADES
from .json_files import read_json, read_jsonl
from .shard_files import OFFICIAL_ROWS

SPLITS = ("train", "dev")
# no timestamp or version in the PNG: identical inputs give identical files
PNG_METADATA = {"Software": None}
NOT_AVAILABLE = "not available"
STYLE = ("body{font-family:sans-serif;font-size:14px} table{border-collapse:collapse;margin:8px 0}"
         "td,th{border:1px solid #bbb;padding:3px 8px;text-align:right} th{background:#eee}"
         "td:first-child,th:first-child{text-align:left}")


def figure_uri(fig) -> str:
    """The figure as a PNG data URI, for an <img> inside a table."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight", metadata=PNG_METADATA)
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def save_figure(fig, path) -> None:
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight", metadata=PNG_METADATA)
    plt.close(fig)


def html_table(header, rows) -> str:
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_cell(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _cell(value) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def write_html(path, title: str, body: str) -> None:
    write_text_atomic(path, f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
                            f"<style>{STYLE}</style></head><body><h3>{html.escape(title)}</h3>{body}</body></html>\n")


# -- A Doubting build ---------------------------------------------------------------------------

def origin_name(split: str, origin: str) -> str:
    """An origin of a split's graded pairs as its counts are: a dev official positive that the agent proposed too
    is graded once, as the agent's (OFFICIAL_ROWS)."""
    return "official, not proposed" if origin == "official" and OFFICIAL_ROWS[split] == "not_proposed" else origin


def grade_counts(stats: dict) -> dict[tuple[str, str], list[int]]:
    """{(split, origin): [count of grade 0, 1, 2, 3]}."""
    return {(split, origin): [int(stats["splits"][split][f"{origin}_grades"][str(g)]) for g in GRADES]
            for split in SPLITS for origin in ("agent", "official")}


def split_name(split: str, beir: dict | None) -> str:
    """The release's split, with the qrels split of a BEIR folder it comes from where the names differ."""
    qrels = beir["qrels"][split] if beir else split
    return split if qrels == split else f"{split} (qrels {qrels})"


def grades_figure(stats: dict, path, *, title: str, grading: dict[str, str], beir: dict | None = None) -> None:
    """Per split (`grading`: {split: the mode it was graded in}; `beir`: a BEIR build's folder and qrels splits),
    the grade shares of agent proposals and official positives."""
    counts = grade_counts(stats)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    width = 0.4
    for ax, split in zip(axes, SPLITS):
        for i, origin in enumerate(("agent", "official")):
            values = np.array(counts[split, origin], dtype=float)
            share = values / values.sum() if values.sum() else values
            bars = ax.bar(np.arange(4) + (i - 0.5) * width, share, width,
                          label=f"{origin_name(split, origin)} ({counted(int(values.sum()), 'pair')})")
            ax.bar_label(bars, labels=[f"{int(v):,}" for v in values], fontsize=7)
        ax.set_xticks(range(4), [str(g) for g in GRADES])
        ax.set_xlabel("grade")
        ax.set_title(f"{split_name(split, beir)}: graded {grading[split]}")
        ax.legend(fontsize=8)
    axes[0].set_ylabel("share of the origin's graded pairs")
    modes = {grading[split] for split in SPLITS}
    fig.suptitle(f"{title}: grades of agent proposals and official positives"
                 + ("" if len(modes) == 1 else "\n(the splits are graded in different modes: not comparable)"))
    save_figure(fig, path)


def wood_figure(judgments_train, path, *, title: str) -> dict:
    """Histogram of the finite WOOD scores of train agent proposals; returns their summary."""
    table = pq.read_table(judgments_train, columns=["origin", "wood", "grade"])
    agent = table.filter(pc.equal(table.column("origin"), "agent"))
    wood = agent.column("wood").to_numpy(zero_copy_only=False)
    grade = agent.column("grade").to_numpy(zero_copy_only=False)
    finite = np.isfinite(wood.astype(float))
    fig, ax = plt.subplots(figsize=(7, 3.4), layout="constrained")
    summary = {"proposals": int(len(wood)), "finite": int(finite.sum()), "null": int((~finite).sum())}
    if finite.any():
        bins = np.histogram_bin_edges(wood[finite].astype(float), bins=40)
        for low, label in ((True, "grade 0-1"), (False, "grade 2-3")):
            mask = finite & ((grade < 2) if low else (grade >= 2))
            ax.hist(wood[mask].astype(float), bins=bins, alpha=0.6, label=f"{label} ({int(mask.sum()):,})")
        ax.axvline(0, color="k", lw=0.6)
        ax.legend(fontsize=8)
        summary.update(mean=float(np.mean(wood[finite])), median=float(np.median(wood[finite])))
    else:
        ax.text(0.5, 0.5, "no finite WOOD score in this build", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("WOOD (mean log-likelihood gain of the answer tokens with the passage)")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("train agent proposals")
    ax.set_title(f"{title}: WOOD of {counted(summary['finite'], 'train proposal')} "
                 f"({summary['null']:,} without a finite score)")
    save_figure(fig, path)
    return summary


def proposals_figure(train_queries, dev_queries, path, *, title: str, beir: dict | None = None) -> dict:
    """Histogram of the agent's graded proposals per query (n_agent), train and dev."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), layout="constrained")
    summary = {}
    for ax, split, file in zip(axes, SPLITS, (train_queries, dev_queries)):
        n_agent = pq.read_table(file, columns=["n_agent"]).column("n_agent").to_numpy(zero_copy_only=False)
        summary[split] = {"queries": int(len(n_agent)), "without_proposal": int((n_agent == 0).sum()),
                          "mean": float(n_agent.mean()) if len(n_agent) else 0.0,
                          "max": int(n_agent.max()) if len(n_agent) else 0}
        top = int(n_agent.max()) if len(n_agent) else 0
        ax.hist(n_agent, bins=np.arange(0, top + 2) - 0.5 if top < 60 else 40)
        ax.set_xlim(-0.5, max(top, 1) + 0.5)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("graded proposals of the query (n_agent)")
        ax.set_title(f"{split_name(split, beir)}: {counted(len(n_agent), 'query', 'queries')}, "
                     f"mean {summary[split]['mean']:.1f}")
    axes[0].set_ylabel("queries")
    fig.suptitle(f"{title}: agent proposals per query")
    save_figure(fig, path)
    return summary


def _failures_html(manifest: dict) -> str:
    failures = manifest.get("failures")
    if failures:
        stages = failures["stages"]
        kinds = sorted({k for stage in stages.values() for k in stage["by_kind"]})
        rows = [[stage, s["units"] or "", s["total"], s["failed"], s["failed"] / s["total"] if s["total"] else 0.0,
                 failures["limits"][stage], *[s["by_kind"].get(k, 0) for k in kinds]] for stage, s in stages.items()]
        part = html_table(["stage", "units", "total", "failed", "failed share", "limit", *kinds], rows)
        if failures["accepted_over_limit"]:
            part += "<p>Published over the failure limits (accept_llm_failures).</p>"
    else:
        part = f"<p>Failures per stage: {NOT_AVAILABLE} (MANIFEST.json has no <code>failures</code>).</p>"
    grading = manifest.get("grading_failures")
    if grading:
        rows = [[key, count] for key, count in grading["by_split_and_origin"].items()]
        rows += [[f"reason: {reason}", count] for reason, count in grading["by_reason"].items()]
        part += "<p>Grading calls that failed after retries (pairs without a grade):</p>"
        part += html_table(["split/origin", "pairs"], rows + [["total", grading["total"]]])
    return part


def tokens_html(manifest: dict) -> str:
    """The LLM tokens each stage's calls spent (MANIFEST.json `tokens`)."""
    tokens = manifest.get("tokens")
    if not tokens:
        return f"<p>LLM tokens per stage: {NOT_AVAILABLE} (MANIFEST.json has no <code>tokens</code>).</p>"
    rows = [[stage, t["calls"], t["prompt_tokens"], t["completion_tokens"],
             t["prompt_tokens"] / t["calls"] if t["calls"] else 0.0] for stage, t in tokens.items()]
    return ("<p>LLM tokens spent per stage (calls made, not journal hits):</p>"
            + html_table(["stage", "calls", "prompt tokens", "completion tokens", "prompt tokens per call"], rows))


def confusion_figure_uri(confusion, source: str) -> str:
    """The audit's confusion matrix as a PNG data URI (embedded in the audit table); `source`: who gave the
    reference grades (doubting.audit.grades_from)."""
    matrix = np.array(confusion, dtype=float)
    fig, ax = plt.subplots(figsize=(4.2, 3.6), layout="constrained")
    ax.imshow(matrix, cmap="Blues")
    for (i, j), value in np.ndenumerate(matrix):
        ax.text(j, i, f"{int(value):,}", ha="center", va="center",
                color="white" if value > matrix.max() / 2 else "black", fontsize=9)
    ax.set_xticks(range(4), [str(g) for g in GRADES])
    ax.set_yticks(range(4), [str(g) for g in GRADES])
    ax.set_xlabel("model grade")
    ax.set_ylabel(f"{source} grade")
    ax.set_title("Label audit: confusion matrix")
    return figure_uri(fig)


def audit_html(manifest: dict) -> str:
    audit = manifest.get("audit")
    if not audit:
        return (f"<p>Label audit: {NOT_AVAILABLE} (no <code>audit</code> in MANIFEST.json: the build names no "
                "judged pairs to grade, doubting.audit.qrels).</p>")
    source = audit_grades_from(audit)
    rows = [[f"pairs with {source} grades graded", audit["pairs"]], ["Cohen's kappa, linear", audit["kappa_linear"]],
            ["Cohen's kappa, quadratic", audit["kappa_quadratic"]],
            ["binary agreement at grade >= 2", audit["binary_agreement_at_2"]]]
    matrix = [[f"{source} {g}", *audit["confusion"][g]] for g in GRADES]
    return (html_table(["measure", "value"], rows)
            + (f"<p>The audit's grades are {source} (doubting.audit.grades_from), not human judgments.</p>"
               if source != "human" else "")
            + f"<p>Confusion matrix (rows: {source} grade, columns: model grade):</p>"
            + html_table(["", *[f"model {g}" for g in GRADES]], matrix)
            + f"<img alt='confusion matrix' src='{confusion_figure_uri(audit['confusion'], source)}'>"
            + ranking_html(audit.get("system_ranking"), source))


def ranking_figure_uri(ranking: dict, source: str, measure: str = "nDCG@10") -> str:
    """Each run's score under the audit's grades against the model's, one point a run, as a PNG data URI."""
    runs = ranking["runs"]
    human = [r["human"][measure] for r in runs]
    model = [r["model"][measure] for r in runs]
    fig, ax = plt.subplots(figsize=(4.6, 4.2), layout="constrained")
    top = max([*human, *model, 0.01]) * 1.08
    ax.plot([0, top], [0, top], color="#bbb", linewidth=1, zorder=0)
    ax.scatter(human, model, s=22, color=["#1f77b4" if r["source"] == "config" else "#d62728" for r in runs])
    for r, x, y in zip(runs, human, model):
        ax.annotate(r["name"], (x, y), fontsize=6, xytext=(3, 2), textcoords="offset points")
    ax.set_xlim(0, top)
    ax.set_ylim(0, top)
    ax.set_xlabel(f"{measure}, {source} grades")
    ax.set_ylabel(f"{measure}, model grades")
    tau = ranking["correlation"][measure]["kendall_tau"]
    ax.set_title(f"System ranking: {counted(len(runs), 'run')}, Kendall's tau "
                 + ("n/a" if tau is None else f"{tau:.3f}"), fontsize=9)
    return figure_uri(fig)


def ranking_html(ranking: dict | None, source: str) -> str:
    """The audit's system-ranking agreement: correlations, each run's scores under both, the scatter."""
    if not ranking:
        return f"<p>System ranking under {source} and model grades: {NOT_AVAILABLE}.</p>"
    measures = ranking["measures"]
    corr = [[m, ranking["correlation"][m]["runs"], _or_na(ranking["correlation"][m]["kendall_tau"]),
             _or_na(ranking["correlation"][m]["spearman_rho"])] for m in measures]
    runs = [[r["name"], r["source"], *(r[side][m] for m in measures for side in ("human", "model"))]
            for r in ranking["runs"]]
    return (f"<p>System ranking: each run evaluated over the audited pairs under the {source} grades and under the "
            "model's (workflow's own runs red, configured runs blue):</p>"
            + html_table(["measure", "runs", "Kendall's tau", "Spearman's rho"], corr)
            + html_table(["run", "source", *(f"{m} {label}" for m in measures for label in (source, "model"))], runs)
            + f"<img alt='system ranking scatter' src='{ranking_figure_uri(ranking, source)}'>")


def human_audit_html(human: dict | None) -> str:
    """The blinded human audit: per origin the share judged to fully answer, with its interval."""
    if not human:
        return f"<p>Blinded human audit: {NOT_AVAILABLE} (no <code>human_audit</code> in MANIFEST.json).</p>"
    rows = [[origin, o["items"], o["judged"], o["not_judged"], o["fully_answers"], _or_na(o["share"]),
             _or_na(o["ci95"] and f"{o['ci95'][0]:.3f}-{o['ci95'][1]:.3f}")] for origin, o in human["origins"].items()]
    diff = human["difference"]
    agreement = human["agreement"]
    return ("<p>Blinded human audit: does the passage fully answer the query?</p>"
            + html_table(["origin", "items", "judged", "not judged", "fully answers", "share", "95% Wilson"], rows)
            + html_table(["measure", "value"], [
                ["strict minus official", _or_na(diff and diff["strict_minus_official"])],
                ["its 95% interval", _or_na(diff and f"{diff['ci95'][0]:.3f} to {diff['ci95'][1]:.3f}")],
                ["annotator sheets", len(human["sheets"])],
                ["annotator kappa", _or_na(agreement and agreement["kappa"])],
                ["sampled items without a judgment", len(human["missing_items"])]]))


def _or_na(value):
    return NOT_AVAILABLE if value is None else value


def summary_html(stats: dict, manifest: dict, wood: dict, proposals: dict, *, title: str, grading: dict[str, str],
                 package_dir: str, beir: dict | None = None) -> str:
    rows = [[f"{config}/{split}", count] for config, splits in manifest["rows"].items()
            for split, count in splits.items()]
    counts = grade_counts(stats)
    grades = [[f"{split} {origin_name(split, origin)}", grading[split], *counts[split, origin],
               sum(counts[split, origin])]
              for split in SPLITS for origin in ("agent", "official")]
    props = [[split, p["queries"], p["without_proposal"], p["mean"], p["max"]] for split, p in proposals.items()]
    wood_rows = [[k, v] for k, v in wood.items()]
    return (f"<p>{html.escape(title)}: version {html.escape(manifest['version'])} of "
            f"<code>{html.escape(manifest['name'])}</code>, published in <code>{html.escape(package_dir)}</code>"
            + (f"; its queries from the BEIR folder <code>{html.escape(beir['folder'])}</code>, "
               + " and ".join(f"qrels split <code>{html.escape(beir['qrels'][s])}</code> as {s}" for s in SPLITS)
               if beir else "") + "</p>"
            + html_table(["config/split", "rows"], rows)
            + "<p>Grades (pairs per grade; each split graded in its mode, annotation.grading):</p>"
            + html_table(["split, origin", "grading", *[f"grade {g}" for g in GRADES], "total"], grades)
            + "<p>Agent proposals per query:</p>"
            + html_table(["split", "queries", "without a proposal", "mean", "max"], props)
            + "<p>WOOD of train agent proposals:</p>" + html_table(["", "value"], wood_rows))


# Rank bins of the agent's proposals: the first, the next few, the tail the card's budgets reach.
RANK_BINS = ((1, 1), (2, 5), (6, 10), (11, 60), (61, None))
# Agent stats keys summed over a split's shards (irdata.annotate.agent.run_agent_search).
AGENT_COUNTS = ("queries", "turns", "complied_turns", "protocol_errors", "searches", "reformulations",
                "example_copies", "proposals", "cited_proposals", "echoed_ids")


def agent_behaviour(stats_files: dict, proposal_files: dict) -> dict:
    """Per split, from the agent_search jobs' stats and proposal shards: the counts of AGENT_COUNTS,
    the turns per action constraint path, the episode ends, and proposals by rank bin and source."""
    out = {}
    for split in SPLITS:
        counts = dict.fromkeys(AGENT_COUNTS, 0)
        paths: dict[str, int] = {}
        ends: dict[str, int] = {}
        for path in stats_files.get(split, ()):
            st = read_json(path)
            for key in AGENT_COUNTS:
                counts[key] += st.get(key, 0)
            for into, key in ((paths, "action_constraint"), (ends, "episode_ends")):
                for k, v in st.get(key, {}).items():
                    into[k] = into.get(k, 0) + v
        ranks = {"agent": [0] * len(RANK_BINS), "cited": [0] * len(RANK_BINS)}
        for path in proposal_files.get(split, ()):
            table = pq.read_table(path, columns=["agent_rank", "cited"])
            rank = table.column("agent_rank").to_numpy(zero_copy_only=False)
            cited = table.column("cited").to_numpy(zero_copy_only=False)
            for i, (lo, hi) in enumerate(RANK_BINS):
                inside = (rank >= lo) & (rank <= (hi or np.inf))
                ranks["cited"][i] += int((inside & cited).sum())
                ranks["agent"][i] += int((inside & ~cited).sum())
        out[split] = {**counts, "action_constraint": dict(sorted(paths.items())),
                      "episode_ends": dict(sorted(ends.items())), "proposals_by_rank": ranks}
    return out


def agent_html(behaviour: dict) -> str:
    rows = [[key.replace("_", " "), *(behaviour[split][key] for split in SPLITS)] for key in AGENT_COUNTS]
    keyed = []
    for title, key in (("turns constrained as", "action_constraint"), ("episodes ending as", "episode_ends")):
        for name in sorted({k for split in SPLITS for k in behaviour[split][key]}):
            keyed.append([f"{title} {name}", *(behaviour[split][key].get(name, 0) for split in SPLITS)])
    bins = [f"{lo}" if lo == hi else f"{lo}-{hi}" if hi else f"{lo}+" for lo, hi in RANK_BINS]
    ranks = [[f"{split} {source}", *behaviour[split]["proposals_by_rank"][source]]
             for split in SPLITS for source in ("agent", "cited")]
    return ("<p>The search agent's episodes (one per query), summed over the agent_search jobs: model turns and "
            "the turns whose reply was a tool call the agent could run (complied), searches the model asked "
            "for (reformulations: a query other than the original and the prompt's example; example copies: the "
            "prompt's example query, such as &lt;new words&gt;, searched as written), protocol errors, proposals "
            "(cited: ids a reply broke the protocol to cite).</p>"
            + html_table(["", *SPLITS], rows + keyed)
            + "<p>Accepted proposals by rank in the agent's list, and by source:</p>"
            + html_table(["split, source", *[f"rank {b}" for b in bins]], ranks))


def doubting_report(stats_json, manifest_json, judgments_train, train_queries, dev_queries, out: dict, *,
                    agent_stats: dict, agent_proposals: dict, settings: dict) -> dict:
    """Write out["grades"], out["wood"], out["proposals"] (PNG) and out["summary"], out["failures"],
    out["audit"], out["agent"] (HTML; the agent's from `agent_stats` and `agent_proposals`, each
    {split: [shard files]}), each titled with the build's title (`settings`: irdata.doubting.stages's
    report_settings); return what the tables hold."""
    stats, manifest = read_json(stats_json), read_json(manifest_json)
    title, grading, beir = settings["title"], settings["grading"], settings["beir"]
    behaviour = agent_behaviour(agent_stats, agent_proposals)
    write_html(out["agent"], f"{title}: the search agent's behaviour", agent_html(behaviour))
    grades_figure(stats, out["grades"], title=title, grading=grading, beir=beir)
    wood = wood_figure(judgments_train, out["wood"], title=title)
    proposals = proposals_figure(train_queries, dev_queries, out["proposals"], title=title, beir=beir)
    write_html(out["summary"], f"{title}: rows, grades, proposals, WOOD",
               summary_html(stats, manifest, wood, proposals, title=title, grading=grading,
                            package_dir=settings["package_dir"], beir=beir))
    write_html(out["failures"], f"{title}: failures per stage", _failures_html(manifest) + tokens_html(manifest))
    write_html(out["audit"], f"{title}: label audit and blinded human audit",
               audit_html(manifest) + human_audit_html(manifest.get("human_audit")))
    return {"wood": wood, "proposals": proposals, "audit": manifest.get("audit"),
            "failures": manifest.get("failures"), "agent": behaviour}


# -- 44b Eval ------------------------------------------------------------------------------------

ARM_COLUMNS = ("P@1", "P@2", "P@3", "MRR", "mean_rank", "ms_per_query", "queries")


def eval44b_report(*, results, arms, figure) -> list[dict]:
    """From the release's results.jsonl, write `arms` (HTML table, ranked by P@1) and `figure` (PNG); return the
    ranked rows. An arm without metrics (an LLM arm whose metrics are withheld) is listed last, unranked, and
    not plotted."""
    results = sorted(read_jsonl(results), key=lambda r: (r["P@1"] is None, -(r["P@1"] or 0), r["arm"]))
    rows = [["" if r["P@1"] is None else i + 1, r["arm"] + (f" ({r['model']})" if r.get("model") else ""),
             *["" if r.get(c) is None else r[c] for c in ARM_COLUMNS]] for i, r in enumerate(results)]
    write_html(arms, "44b Eval: arms on the 9-candidate test sets",
               html_table(["rank", "arm", *ARM_COLUMNS], rows))
    plotted = [r for r in results if r["P@1"] is not None]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * max(len(plotted), 1)), layout="constrained")
    names = [r["arm"] for r in plotted][::-1]
    for offset, metric in ((0.2, "P@1"), (-0.2, "MRR")):
        bars = ax.barh(np.arange(len(names)) + offset, [r[metric] for r in plotted][::-1], 0.4, label=metric)
        ax.bar_label(bars, fmt="%.3f", fontsize=7, padding=2)
    ax.axvline(1 / 9, color="k", lw=0.6, ls="--", label="chance P@1 (1/9)")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlim(0, 1.12)
    ax.legend(fontsize=8, loc="lower right")
    ax.set_title("44b Eval: P@1 and MRR per arm")
    save_figure(fig, figure)
    return results


# -- A Doubting build's downstream comparison --------------------------------------------------

DOWNSTREAM_MODELS = ("base", "official", "release")


def downstream_report(*, result, table, figure, settings: dict) -> int:
    """From the downstream comparison's `result` (JSON), write `table` (HTML: the card's table and its sentence)
    and `figure` (PNG: one bar chart per base model and evaluation set, the three models' nDCG@10, MRR@10 and
    Recall@100), titled with the build's title (`settings`); return the panels."""
    from .downstream.compare import MEASURES, finding, table_rows

    result = read_json(result)
    header = ["base model", "set", "queries", "measure", "base", "official", "release", "release - official",
              "95% interval", "p"]
    write_html(table, f"{settings['title']}: downstream comparison",
               html_table(header, table_rows(result)) + f"<p>{html.escape(finding(result))}</p>")
    panels = [(base, name, row) for base, sets in result["results"].items() for name, row in sets.items()]
    fig, axes = plt.subplots(1, max(len(panels), 1), figsize=(4.2 * max(len(panels), 1), 3.4), layout="constrained",
                             squeeze=False)
    x = np.arange(len(MEASURES))
    for ax, (base, name, row) in zip(axes[0], panels):
        ax.set_title(f"{name}\n{base}, {counted(row['queries'], 'query', 'queries')}", fontsize=9)
        if not row["queries"]:
            ax.text(0.5, 0.5, "no query with a relevant pair", transform=ax.transAxes, ha="center", fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        for i, model in enumerate(DOWNSTREAM_MODELS):
            bars = ax.bar(x + (i - 1) * 0.27, [row["mean"][model][m] for m in MEASURES], 0.27, label=model)
            ax.bar_label(bars, fmt="%.2f", fontsize=6, padding=1)
        ax.set_xticks(x, MEASURES)
        ax.set_ylim(0, 1.1)
        ax.legend(fontsize=7, loc="upper left")
    fig.suptitle(f"{settings['title']}: downstream comparison", fontsize=10)
    save_figure(fig, figure)
    return len(panels)


def run_report_doubting(*, stats, manifest, published, judgments_train, train_queries, dev_queries,
                        agent_stats_train, agent_stats_dev, agent_train, agent_dev, summary, grades, wood, proposals,
                        failures, audit, agent, settings: dict) -> dict:
    """The report_doubting rule: its figures and tables from the assembled and the published release
    (`published`: the record of its publishing)."""
    out = {"summary": summary, "grades": grades, "wood": wood, "proposals": proposals, "failures": failures,
           "audit": audit, "agent": agent}
    return doubting_report(stats, manifest, judgments_train, train_queries, dev_queries, out,
                           agent_stats={"train": agent_stats_train, "dev": agent_stats_dev},
                           agent_proposals={"train": agent_train, "dev": agent_dev}, settings=settings)
