"""The release's dataset card (README.md): templates/card/*.md.tmpl (the sections of spec/44b-eval.card.txt)
filled from the manifest and the arms' results (results.jsonl), every number read there, none typed in or
recomputed; what the build is (its ids, corpus, license) from the manifest's `release` (the config's eval44b
keys). No dates: same inputs, same bytes. The front matter and the fields of How to use, Licensing and
Citation: card_hub."""

from __future__ import annotations

from ..card_text import MISSING, count, counted, decimal, fill, md_row, part, percent
from .card_hub import INVENTED, front_matter, hub_fields, input_path
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


def _schemes(counts: dict) -> str:
    return ", ".join(f"{scheme} {count(n)}" for scheme, n in counts.items()) or "none"


def unresolvable_note(census: dict) -> str:
    """How many candidates have no third-party identifier (resolvable: false), from the manifest's census."""
    schemes = " / ".join(census["unresolvable_schemes"]) or "none configured"
    negatives, positives = census["test_unresolvable_negatives"], census["test_unresolvable_positives"]
    if not negatives and not positives:
        return (
            f"No test candidate is of a scheme without a third-party identifier ({schemes}): every id resolves "
            "at its url."
        )
    also = f", and {counted(positives, 'positive')}," if positives else ""
    one = negatives + positives == 1
    are, documents = ("is", "a curated web document") if one else ("are", "curated web documents")
    return (
        f"{counted(negatives, 'negative')} ({percent(census['test_unresolvable_negatives_share'])}){also} {are} "
        f"{documents} with no third-party identifier (scheme {schemes}) and {are} marked resolvable: false."
    )


def intro(manifest: dict) -> str:
    """The card's first lines: what the build is. A build with invented ids says so first (the demo), and
    that its numbers measure nothing about real papers; the benchmark's own wording otherwise."""
    release, counts = manifest["release"], manifest["counts"]
    corpus = release["corpus_description"]
    fields = {"test_queries": counted(counts["queries_released"]["test"], "test query", "test queries"),
              "test_papers": counted(counts["papers_released"]["test"], "paper"),
              "candidates": manifest["scoring"]["candidates_per_query"],
              "negatives": counted(manifest["mining"]["negatives"], "hard negative"),
              "chance": decimal(manifest["scoring"]["chance"]["P@1"])}
    if release["ids_refer_to"] == INVENTED:
        return part(__file__, "intro_invented.md.tmpl", {**fields, "corpus": corpus or "invented data",
                                                          "papers_file": input_path(manifest, "papers"),
                                                          "reviews_file": input_path(manifest, "reviews")})
    return part(__file__, "intro.md.tmpl", {**fields, "built_from": f" Built from {corpus}." if corpus else ""})


def text_paragraph(manifest: dict) -> str:
    """Where the text of the queries and candidates is: at the urls, or in the input files of a build with
    invented ids."""
    census = manifest["id_schemes"]
    fields = {"query_source": manifest["queries"]["source"], "positive_schemes": _schemes(census["test_positives"]),
              "negative_schemes": _schemes(census["test_negatives"])}
    if manifest["release"]["ids_refer_to"] == INVENTED:
        return part(__file__, "text_invented.md.tmpl", {**fields, "papers_file": input_path(manifest, "papers"),
                                                         "reviews_file": input_path(manifest, "reviews")})
    return part(__file__, "text.md.tmpl", {**fields, "unresolvable": unresolvable_note(census)})


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


def speed(result: dict) -> str:
    """An arm's ms/query cell: its measured wall time, or that every query was replayed from the LLM journal."""
    if result["ms_per_query"] is None and result.get("queries_replayed"):
        return f"{MISSING} (replayed)"
    return decimal(result["ms_per_query"], 1)


def arm_rows(results: list[dict], scoring: dict) -> list[str]:
    """The Performance table's rows, best P@1 first."""
    ranked = sorted(results, key=lambda r: (-(r["P@1"] or 0), r["arm"]))
    return [
        md_row([
            MISSING if r["P@1"] is None else rank,  # an arm without metrics (withheld) has no place
            arm_title(r, scoring), *(decimal(r[m]) for m in ("P@1", "P@2", "P@3", "MRR", "mean_rank")),
            speed(r), count(r["queries"]),
        ])
        for rank, r in enumerate(ranked, start=1)
    ]


def replay_lines(results: list[dict]) -> list[str]:
    """What ms/query measured for an arm some of whose grades the LLM journal answered (identical calls made
    before, by an earlier build or earlier in this one): a journal answer times the journal, not the model."""
    lines = []
    for r in (r for r in results if r.get("queries_replayed")):
        scored = r["queries"] + r.get("queries_unranked", 0)
        replayed = r["queries_replayed"]
        measured = (f"so its ms/query is the wall time of the other {counted(scored - replayed, 'query', 'queries')}, "
                    "whose calls were all made in this build" if r["ms_per_query"] is not None else
                    "so its ms/query is not given")
        lines.append(
            f"Timing of the {r['arm']} arm: {count(replayed)} of its {counted(scored, 'query', 'queries')} had "
            "grades answered from the LLM journal (identical calls made before, by an earlier build or earlier in "
            f"this one) rather than by calls made for them. A journal answer measures no model speed, {measured}. To "
            "measure every query, move that journal (score_arms-llm.jsonl in llm.journal_dir) away and score the arm "
            "again (its score_arms job, forced)."
        )
    return lines


def failure_lines(results: list[dict]) -> list[str]:
    """The LLM arm's failed grades, as results.jsonl counts them: never a score, never a rank."""
    lines = []
    for r in (r for r in results if "failures" in r):
        f = r["failures"]
        kinds = ", ".join(f"{kind} {count(n)}" for kind, n in f["by_kind"].items())
        line = (
            f"LLM failures of the {r['arm']} arm: {count(f['failed'])} of {count(f['total'])} graded {f['units']} "
            f"failed{f' ({kinds})' if kinds else ''}; "
            f"{counted(r['queries_unranked'], 'query with a failed grade is', 'queries with a failed grade are')} "
            "left unranked, out of its metrics"
        )
        withheld = r["metrics_withheld"]
        lines.append(line + (f"; its metrics are withheld: {withheld}." if withheld else "."))
    return lines


def miner_lines(mining: dict) -> list[str]:
    """Each miner's settings and index, and the arms that score with its model."""
    indexes = mining.get("indexes") or {}
    shared = mining["shared_with_arms"]
    lines = []
    for miner in ("dense", "lexical"):
        settings = ", ".join(f"{k} {v}" for k, v in shared[miner]["settings"].items())
        index = indexes.get(miner, {})
        extra = f"; {index['index']} index, ef_search {index['ef_search']}" if miner == "dense" and index else ""
        arms = ", ".join(shared[miner]["arms_with_the_same_model"]) or "none"
        lines.append(f"- {miner} miner: {settings}{extra}. Arms scoring with the same model: {arms}.")
    return lines


def fine_tuned_rows(fine_tuned: dict) -> list[str]:
    return [
        md_row([arm, t["base_model"], count(t["parameters"]), count(t["steps"]), t["epochs"],
                f"{decimal(t['best']['val']['MRR'])} ({t['best']['step']})", decimal(t["train_seconds"], 0),
                t["threads"], f"`{t['model_sha256'][:16]}…`"])
        for arm, t in sorted(fine_tuned.items())
    ]


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
    contents = []
    for name in ("test.jsonl", "results.jsonl", "ranks.jsonl", "manifest.json", "train_pairs.jsonl", "val_pairs.jsonl"):
        what = FILE_WHAT[name]
        what = what % (n_cand if name == "ranks.jsonl" else n_neg) if "%d" in what else what
        contents.append(md_row([name, count(files[name]["rows"]) if name in files else 1, what]))
    excluded = mining["train_negatives_exclude"]
    trained = mining.get("trained_on_train_negatives") or []
    failed = failure_lines(results) + replay_lines(results)
    fine_tuned = scoring.get("fine_tuned") or {}
    fields = {
        "intro": intro(manifest), "version": manifest["version"], "contents": "\n".join(contents),
        "text": text_paragraph(manifest),
        **{key: " | ".join(count(counts[key][s]) for s in SPLITS)
           for key in ("papers", "papers_released", "reviews", "queries_too_short", "queries_lacking_negatives",
                       "queries_released")},
        "min_chars": manifest["queries"]["min_chars"], "negatives": n_neg, "candidates": n_cand,
        "query_source": manifest["queries"]["source"], "reviews_without_paper": count(counts["reviews_without_paper"]),
        **{f"split_{key}": manifest["split"][key] for key in ("unit", "rule", "salt", "key_format")},
        "positive_in_train": count(proof["test_papers_positive_in_train"]),
        "positive_in_val": count(proof["test_papers_positive_in_val"]),
        "as_train_negatives": count(proof["test_papers_as_train_negatives"]),
        # the papers of the released test queries, as in the intro
        "test_papers": count(counts["papers_released"]["test"]),
        "as_train_negatives_share": percent(proof["test_papers_as_train_negatives_share"]),
        "as_val_negatives": count(proof["test_papers_as_val_negatives"]),
        "withheld": (f"Papers of the {' and '.join(excluded)} split are never train negatives" if excluded else
                     "No split is withheld from train negatives, as on the card"),
        "mix": ", ".join(f"{quota} from the {miner} miner" for miner, quota in mining["mix"].items()),
        "depth": mining["depth"], "seed": mining["seed"], "pool": mining["pool"],
        "miners": "\n".join(miner_lines(mining)), "screen": mining["recipe"]["screen"],
        "title_normalisation": mining["title_normalisation"], "title_threshold": mining["title_threshold"],
        "screen_counts": ", ".join(f"{k} {count(v)}" for k, v in mining["screen_counts"]["test"].items()) or "none",
        "negatives_by_miner": ", ".join(f"{k} {count(v)}" for k, v in mining["negatives_by_miner"]["test"].items()),
        "trained": f"\n- Trained on the train split's mined negatives: {', '.join(trained)}." if trained else "",
        "test_queries": counted(counts["queries_released"]["test"], "test query", "test queries"),
        "query_chars": scoring["query_chars"], "document_chars": scoring["document_chars"],
        "arms": "\n".join(arm_rows(results, scoring)),
        "failures": "".join("\n\n" + line for line in failed),
        "fine_tuned": ("\n\n" + part(__file__, "fine_tuned.md.tmpl", {"rows": "\n".join(fine_tuned_rows(fine_tuned))})
                       if fine_tuned else ""),
        **hub_fields(manifest),
    }
    return front_matter(manifest) + "\n" + fill(__file__, "README.md.tmpl", fields)
