"""The release's dataset card (README.md): the sections of spec/44b-eval.card.txt, every number read from
the manifest and the arms' results (results.jsonl), none typed in or recomputed; what the build is (its ids,
corpus, license) from the manifest's `release` (the config's eval44b keys). No dates: same inputs, same
bytes. The front matter and the How to use, Licensing and Citation sections: card_hub."""

from __future__ import annotations

from .card_hub import INVENTED, front_matter, hub_sections, input_path
from .split import SPLITS

ARM_TITLES = {
    "random": "Random (chance check)",
    "bm25": "BM25 (keyword)",
    "dense": "Dense ({model})",
    "hybrid_rrf": "Hybrid RRF (k = {rrf_k})",
    "finetuned_cross_encoder": "Cross-encoder fine-tuned on train ({params}M, from {base})",
    "finetuned_bi_encoder": "Bi-encoder fine-tuned on train ({params}M, from {base})",
    "llm": "LLM pointwise grade 0-3 ({model})",
}
FILE_WHAT = {
    "test.jsonl": "{note_id, note_url, kind, positive{scheme,id,url}, negatives[%d]{scheme,id,url}}: a line a query",
    "results.jsonl": "the scorer's output per arm: P@1, P@2, P@3, MRR, mean rank, ms/query, truncation settings",
    "ranks.jsonl": "{arm, note_id, rank, candidate_ranks[%d]}: the rank of the positive per (arm, query), and of "
    "every candidate in test.jsonl's order; results.jsonl's metrics recompute from it",
    "manifest.json": "split rule and seed, counts, disjointness proof, negative-mining recipe, ID-scheme census",
    "train_pairs.jsonl": "the train split's queries as test.jsonl, each negative with its miner and rank",
    "val_pairs.jsonl": "the val split's queries, the same shape",
}


def _n(value) -> str:
    return f"{value:,}" if isinstance(value, int) else str(value)


def _f(value, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _share(share) -> str:
    return "—" if share is None else f"{share:.1%}"


def _schemes(counts: dict) -> str:
    return ", ".join(f"{scheme} {_n(n)}" for scheme, n in counts.items()) or "none"


def unresolvable_note(census: dict) -> str:
    """How many candidates have no third-party identifier (resolvable: false), from the manifest's census."""
    schemes = " / ".join(census["unresolvable_schemes"]) or "none configured"
    negatives, positives = census["test_unresolvable_negatives"], census["test_unresolvable_positives"]
    if not negatives and not positives:
        return (
            f"No test candidate is of a scheme without a third-party identifier ({schemes}): every id resolves "
            "at its url."
        )
    also = f", and {_n(positives)} positives," if positives else ""
    return (
        f"{_n(negatives)} negatives ({_share(census['test_unresolvable_negatives_share'])}){also} are curated web "
        f"documents with no third-party identifier (scheme {schemes}) and are marked resolvable: false."
    )


def intro(manifest: dict, n_cand: int, n_neg: int) -> list[str]:
    """The card's first lines: what the build is. A build with invented ids says so first (the demo), and
    that its numbers measure nothing about real papers; the benchmark's own wording otherwise."""
    release, counts = manifest["release"], manifest["counts"]
    test_q, test_papers = counts["queries_released"]["test"], counts["papers_released"]["test"]
    chance = manifest["scoring"]["chance"]["P@1"]
    shape = (f"{_n(test_q)} test queries over {_n(test_papers)} papers, {n_cand} candidates each "
             f"(1 positive + {n_neg} hard negatives). Chance P@1 = {chance:.3f}.")
    corpus = release["corpus_description"]
    if release["ids_refer_to"] == INVENTED:
        return [
            "# 44b Eval format: a build from invented data",
            "",
            f"**Not the 44b Eval benchmark.** This build is made from {corpus or 'invented data'}: its papers, "
            "reviews, paper ids and OpenReview note ids are invented, no id or url resolves at a public source, and "
            "its numbers say nothing about real papers or rerankers (eval44b.ids_refer_to: invented). The text is "
            f"in the build's input files {input_path(manifest, 'papers')} and {input_path(manifest, 'reviews')}.",
            "",
            f"A {n_cand}-way reranking set in the format of 44b Eval, queried by the invented reviews: {shape}",
        ]
    built_from = f" Built from {corpus}." if corpus else ""
    return [
        "# 44b Eval",
        "",
        f"A frozen {n_cand}-way reranking benchmark over machine-learning papers, queried by their peer reviews: "
        f"{shape}{built_from}",
    ]


def text_paragraph(manifest: dict) -> str:
    """Where the text of the queries and candidates is: at the urls, or in the input files of a build with
    invented ids."""
    census, source = manifest["id_schemes"], manifest["queries"]["source"]
    schemes = (f"Test candidates by id scheme: positives {_schemes(census['test_positives'])}; negatives "
               f"{_schemes(census['test_negatives'])}.")
    if manifest["release"]["ids_refer_to"] == INVENTED:
        return (f"**The text.** The ids are invented and resolve nowhere: the query is the review's text ({source}) "
                f"in {input_path(manifest, 'reviews')}, by note_id; each candidate is the title + abstract of the "
                f"paper of its scheme and id in {input_path(manifest, 'papers')}. {schemes}")
    return (f"**Rebuilding the text.** The query is the review's text at note_url ({source}). Each candidate is the "
            f"title + abstract of the paper at its url. {schemes} " + unresolvable_note(census))


def arm_title(result: dict, scoring: dict) -> str:
    arm = result["arm"]
    training = result.get("training") or {}
    template = ARM_TITLES.get(arm, "Cross-encoder {model} (brought)" if arm.startswith("cross_encoder-") else arm)
    return template.format(
        model=result.get("model", ""),
        rrf_k=scoring.get("rrf_k"),
        params=f"{training.get('parameters', 0) / 1e6:.1f}",
        base=training.get("base_model", ""),
    )


def arm_table(results: list[dict], scoring: dict) -> list[str]:
    ranked = sorted(results, key=lambda r: (-(r["P@1"] or 0), r["arm"]))
    lines = [
        "| Rank | Arm | P@1 | P@2 | P@3 | MRR | mean rank | ms/query | queries |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for rank, r in enumerate(ranked, start=1):
        ms = "—" if r["ms_per_query"] is None else f"{r['ms_per_query']:.1f}"
        place = "—" if r["P@1"] is None else rank  # an arm without metrics (withheld) has no place
        lines.append(
            f"| {place} | {arm_title(r, scoring)} | {_f(r['P@1'])} | {_f(r['P@2'])} | {_f(r['P@3'])} | {_f(r['MRR'])} "
            f"| {_f(r['mean_rank'])} | {ms} | {_n(r['queries'])} |"
        )
    return lines


def failure_lines(results: list[dict]) -> list[str]:
    """The LLM arm's failed grades, as results.jsonl counts them: never a score, never a rank."""
    lines = []
    for r in (r for r in results if "failures" in r):
        f = r["failures"]
        kinds = ", ".join(f"{kind} {_n(n)}" for kind, n in f["by_kind"].items())
        line = (
            f"LLM failures of the {r['arm']} arm: {_n(f['failed'])} of {_n(f['total'])} graded {f['units']} failed"
            f"{f' ({kinds})' if kinds else ''}; {_n(r['queries_unranked'])} queries with a failed grade are left "
            "unranked, out of its metrics"
        )
        withheld = r["metrics_withheld"]
        lines.append(line + (f"; its metrics are withheld: {withheld}." if withheld else "."))
    return lines


def card_markdown(manifest: dict, results: list[dict]) -> str:
    counts, proof, mining, scoring = (
        manifest["counts"],
        manifest["disjointness"],
        manifest["mining"],
        manifest["scoring"],
    )
    files = manifest["files"]
    n_neg = mining["negatives"]
    n_cand = scoring["candidates_per_query"]
    test_q = counts["queries_released"]["test"]
    # the papers of the released test queries: the intro, the Counts table and the Disjointness section
    test_papers = counts["papers_released"]["test"]
    lines = [
        *front_matter(manifest),
        *intro(manifest, n_cand, n_neg),
        "",
        "## Contents",
        "",
        "| file | rows | what |",
        "| --- | --- | --- |",
    ]
    for name in ("test.jsonl", "results.jsonl", "ranks.jsonl", "manifest.json", "train_pairs.jsonl", "val_pairs.jsonl"):
        what = FILE_WHAT[name]
        what = what % (n_cand if name == "ranks.jsonl" else n_neg) if "%d" in what else what
        lines.append(f"| {name} | {_n(files[name]['rows']) if name in files else 1} | {what} |")
    lines += [
        "",
        "SHA256SUMS holds the sha256 of every file above, of croissant.json (Croissant 1.0 metadata) and of this "
        "card; manifest.json that of each data file.",
        "",
        text_paragraph(manifest),
        "",
        "## Counts",
        "",
        "| | train | val | test |",
        "| --- | --- | --- | --- |",
        "| papers (by the split hash) | " + " | ".join(_n(counts["papers"][s]) for s in SPLITS) + " |",
        "| papers of the released queries | " + " | ".join(_n(counts["papers_released"][s]) for s in SPLITS) + " |",
        "| reviews | " + " | ".join(_n(counts["reviews"][s]) for s in SPLITS) + " |",
        f"| reviews shorter than {manifest['queries']['min_chars']} characters | "
        + " | ".join(_n(counts["queries_too_short"][s]) for s in SPLITS)
        + " |",
        f"| queries without {n_neg} clean negatives (dropped) | "
        + " | ".join(_n(counts["queries_lacking_negatives"][s]) for s in SPLITS)
        + " |",
        "| queries released | " + " | ".join(_n(counts["queries_released"][s]) for s in SPLITS) + " |",
        "",
        f"Query: {manifest['queries']['source']}, at least {manifest['queries']['min_chars']} characters. "
        f"Reviews whose paper is not in the collection: {_n(counts['reviews_without_paper'])}.",
        "",
        "## Split",
        "",
        f"By {manifest['split']['unit']}: {manifest['split']['rule']}, salt `{manifest['split']['salt']}`, "
        f"key `{manifest['split']['key_format']}`.",
        "",
        "## Disjointness",
        "",
        f"- Test papers that are a positive in train: {_n(proof['test_papers_positive_in_train'])}; in val: "
        f"{_n(proof['test_papers_positive_in_val'])}.",
        f"- Test papers that are some train query's negative: {_n(proof['test_papers_as_train_negatives'])} of "
        f"{_n(test_papers)} ({_share(proof['test_papers_as_train_negatives_share'])}); "
        f"as a val negative: {_n(proof['test_papers_as_val_negatives'])}. "
        + (
            f"Papers of the {' and '.join(mining['train_negatives_exclude'])} split are never train negatives"
            if mining["train_negatives_exclude"]
            else "No split is withheld from train negatives, as on the card"
        )
        + " (`eval44b.mining.train_negatives_exclude`).",
        "",
        "## Negatives",
        "",
        f"{n_neg} per query, "
        + ", ".join(f"{quota} from the {miner} miner" for miner, quota in mining["mix"].items())
        + f": each miner's top {mining['depth']} over every paper of the collection, screened, the quota drawn "
        f"(seed {mining['seed']}) from its first {mining['pool']} clean candidates.",
        "",
    ]
    indexes = mining.get("indexes") or {}
    shared = mining["shared_with_arms"]
    for miner in ("dense", "lexical"):
        settings = ", ".join(f"{k} {v}" for k, v in shared[miner]["settings"].items())
        index = indexes.get(miner, {})
        extra = f"; {index['index']} index, ef_search {index['ef_search']}" if miner == "dense" and index else ""
        arms = ", ".join(shared[miner]["arms_with_the_same_model"]) or "none"
        lines.append(f"- {miner} miner: {settings}{extra}. Arms scoring with the same model: {arms}.")
    lines += [
        f"- Screen: {mining['recipe']['screen']}; titles {mining['title_normalisation']}, similarity >= "
        f"{mining['title_threshold']}.",
        "- Screen rejections (test): "
        + (", ".join(f"{k} {_n(v)}" for k, v in mining["screen_counts"]["test"].items()) or "none")
        + ".",
        "- Negatives by miner (test): "
        + ", ".join(f"{k} {_n(v)}" for k, v in mining["negatives_by_miner"]["test"].items())
        + ".",
    ]
    trained = mining.get("trained_on_train_negatives") or []
    if trained:
        lines.append(f"- Trained on the train split's mined negatives: {', '.join(trained)}.")
    lines += [
        "",
        "## Performance",
        "",
        f"{_n(test_q)} test queries, {n_cand} candidates each. Truncation at scoring: query "
        f"{scoring['query_chars']} characters, document (title + abstract) {scoring['document_chars']} characters. "
        "Retrieval arms are first-stage rankings of the same candidate sets.",
        "",
        *arm_table(results, scoring),
        "",
        f"These are reranking numbers (picking the right paper out of {n_cand} confusable ones), not open-corpus "
        "retrieval. ms/query is wall time on the build machine (— when the build does not record timing). "
        "ranks.jsonl holds each arm's rank of every query's positive: the table recomputes from it (How to use).",
    ]
    failed = failure_lines(results)
    if failed:
        lines += ["", *failed]
    fine_tuned = scoring.get("fine_tuned") or {}
    if fine_tuned:
        lines += [
            "",
            "### Fine-tuned arms",
            "",
            "| arm | base | parameters | steps | epochs | best val MRR (step) | train s | threads | model sha256 |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for arm, t in sorted(fine_tuned.items()):
            seconds = "—" if t["train_seconds"] is None else f"{t['train_seconds']:.0f}"
            lines.append(
                f"| {arm} | {t['base_model']} | {_n(t['parameters'])} | {_n(t['steps'])} | {t['epochs']} "
                f"| {_f(t['best']['val']['MRR'])} ({t['best']['step']}) | {seconds} | {t['threads']} "
                f"| `{t['model_sha256'][:16]}…` |"
            )
    lines += ["", *hub_sections(manifest)]
    return "\n".join(lines) + "\n"
