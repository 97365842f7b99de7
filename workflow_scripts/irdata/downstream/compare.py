"""The downstream comparison's result (downstream.json, MANIFEST.json's `downstream`) and its card section.

Per base model and evaluation set: the mean nDCG@10, MRR@10 and Recall@100 of the base model and of the two
trained ones, and per measure the difference release - official with its paired randomisation-test p-value
and bootstrap 95% interval over the set's queries (significance.paired_difference, seeded). The card's
sentence is written from these numbers: which differences are significant at 0.05 and in which direction,
or that there are none; when the two label sets are the same for every query it says so and claims nothing.
"""

from __future__ import annotations

import textwrap

from .significance import paired_difference

MEASURES = ("nDCG@10", "MRR@10", "Recall@100")
ALPHA = 0.05
# the sets of the build's own collection: its dev queries with the release's strict qrels and with the official ones
OWN_SETS = ("release_strict", "official")


def own_set_labels(collection: str) -> dict[str, str]:
    """The own sets' labels, naming the build's collection (`collection`: the build's name)."""
    return {OWN_SETS[0]: f"{collection} dev, the release's strict qrels (grade 3)",
            OWN_SETS[1]: f"{collection} dev, the official qrels"}


def compare(evaluations: dict, trainings: dict, training_set: dict, settings: dict) -> dict:
    """evaluations: {base: {model: {collection: evaluate_model result}}}; trainings: {base: {arm: training
    report}}; training_set: the training set's report."""
    results = {}
    for base, models in sorted(evaluations.items()):
        sets = {}
        for collection in sorted(models["base"]):
            for name in sorted(models["base"][collection]["sets"]):
                scored = {model: models[model][collection]["sets"][name] for model in ("base", "release", "official")}
                queries = list(scored["base"]["per_query"])
                row = {"queries": len(queries), "min_rel": scored["base"]["min_rel"],
                       "index": models["base"][collection]["index"],
                       "mean": {model: {m: s["mean"][m] for m in MEASURES} for model, s in scored.items()},
                       "difference": {}}
                for m in MEASURES:
                    a, b = ([scored[arm]["per_query"][q][m] for q in queries] for arm in ("release", "official"))
                    row["difference"][m] = paired_difference(a, b, settings["resamples"], settings["seed"])
                sets[name] = row
        results[base] = sets
    models = {base: {arm: {k: report[k] for k in ("model_sha256", "steps", "examples", "train_queries", "parameters")}
                     for arm, report in sorted(arms.items())} for base, arms in sorted(trainings.items())}
    return {"positives": settings["positives"], "training_set": training_set, "settings": settings["train"],
            "alpha": ALPHA, "resamples": settings["resamples"], "seed": settings["seed"], "models": models,
            "eval_sets": {**own_set_labels(settings["collection"]),
                          **{s["name"]: f"{s['name']} ({s['split']} qrels, BEIR format)"
                             for s in settings["eval_sets"]}},
            "results": results}


def _f(x) -> str:
    return "-" if x is None else f"{x:.4f}"


def _signed(x) -> str:
    return "-" if x is None else f"{x:+.4f}"


def _p(x) -> str:
    return "-" if x is None else (f"{x:.3f}" if x >= 0.001 else f"{x:.1e}")


def table_rows(result: dict) -> list[list[str]]:
    rows = []
    for base, sets in result["results"].items():
        for name, row in sets.items():
            for m in MEASURES:
                d = row["difference"][m]
                ci = "-" if d["ci95"] is None else f"[{d['ci95'][0]:+.4f}, {d['ci95'][1]:+.4f}]"
                # a set without a relevant pair has no mean (evaluate.py's 0 means nothing there)
                means = [_f(row["mean"][k][m] if row["queries"] else None) for k in ("base", "official", "release")]
                rows.append([base, name, str(row["queries"]), m, *means,
                             _signed(d["difference"]), ci, _p(d["p_value"])])
    return rows


def _empty_sets(result: dict) -> str:
    empty = sorted({name for sets in result["results"].values() for name, row in sets.items() if not row["queries"]})
    if not empty:
        return ""
    return (f" {', '.join(empty)} {'has' if len(empty) == 1 else 'have'} no query with a relevant pair in this "
            "build, so nothing was compared there.")


def finding(result: dict) -> str:
    """The sentence about downstream gains, from the numbers."""
    ts = result["training_set"]
    differ, queries = ts["differ"], ts["queries"]
    if differ == 0:
        return (f"The release's positives equal the official ones for all {queries:,} training queries, so both arms "
                "trained on the same labels, came out as the same model, and every difference is 0: this build "
                "shows nothing about whether the release's positives help downstream." + _empty_sets(result))
    significant = [(base, name, m, row["difference"][m]["difference"])
                   for base, sets in result["results"].items() for name, row in sets.items() for m in MEASURES
                   if row["queries"] and (row["difference"][m]["p_value"] or 1) < result["alpha"]
                   and row["difference"][m]["difference"]]
    scope = (f"The positives differ for {differ:,} of the {queries:,} training queries "
             f"({100 * differ / max(queries, 1):.1f}%).")
    if not significant:
        return (f"{scope} No difference between the two trained models is significant at p < {result['alpha']} "
                "on any evaluation set and measure: this build shows no downstream gain from the release's "
                "positives, and no loss." + _empty_sets(result))
    better = [s for s in significant if s[3] > 0]
    worse = [s for s in significant if s[3] < 0]

    def listed(items):
        return "; ".join(f"{m} on {name} ({base}, {d:+.4f})" for base, name, m, d in items)

    parts = [scope]
    if better:
        parts.append(f"Training on the release's positives is significantly better (p < {result['alpha']}) for "
                     f"{listed(better)}.")
    if worse:
        parts.append(f"It is significantly worse for {listed(worse)}.")
    total = sum(len(MEASURES) for sets in result["results"].values() for row in sets.values() if row["queries"])
    parts.append(f"The other {total - len(significant)} of {total} comparisons show no significant difference.")
    return " ".join(parts) + _empty_sets(result)


def card_section(result: dict | None) -> str:
    """The card's Downstream section: the setup, the generated table and the sentence from the numbers."""
    if result is None:
        return "This build ran no downstream comparison (doubting.downstream.enabled is false)."
    from ..doubting.card_parts import md_table

    ts, s = result["training_set"], result["settings"]
    positives = ("each query's selected positive (positive_source wood, or its official fallback)"
                 if result["positives"] == "selected" else
                 "every qrels/train pair of the query (a query with none takes its official fallback)")
    header = ["Base model", "Evaluation set", "Queries", "Measure", "Base", "Official", "Release",
              "Release - official", "95% interval", "p"]
    sets = "; ".join(f"{name}: {text}" for name, text in result["eval_sets"].items())
    sums = "; ".join(f"{base}/{arm} {m['model_sha256'][:16]}..." for base, arms in result["models"].items()
                     for arm, m in arms.items())
    setup = (f"From each base model the build trains two bi-encoders that differ only in their positives: `release` "
             f"takes {positives}, `official` the same queries' official positives. Both see the same "
             f"{ts['queries']:,} training queries (those with both kinds of positive and a hard negative; "
             f"{ts['no_negative']:,} had no hard negative), the same hard negative per query (the best hybrid BM25 + "
             f"dense hit that is neither graded 2-3 nor officially positive for it), the same seed ({s['seed']}), "
             f"{s['steps']:,} steps of {s['batch_queries']} pairs and loss (MultipleNegativesRankingLoss with the "
             "hard negative). The base model and both trained models are evaluated zero-shot by full retrieval over "
             f"each collection with examples/evaluate.py. Evaluation sets: {sets}. The difference release - official "
             f"has a paired two-sided randomisation test over queries ({result['resamples']:,} resamples, seed "
             f"{result['seed']}) and a bootstrap 95% interval.")
    models = ("The trained models are not in this package. The build keeps them in its folder, "
              f"work/doubting/<build>/downstream/models/<base>/<arm>/ (sha256 of their files: {sums}; all in "
              "MANIFEST.json, downstream.models); the workflow's `downstream` target rebuilds them, byte-identical on "
              "CPU with the same settings (MANIFEST.json, downstream.settings).")
    return "\n\n".join([_wrap(setup), md_table(header, table_rows(result)), _wrap(finding(result)), _wrap(models)])


def _wrap(text: str) -> str:
    return textwrap.fill(text, width=115, break_long_words=False, break_on_hyphens=False)
