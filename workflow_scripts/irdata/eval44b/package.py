"""The 44b Eval release: test.jsonl, results.jsonl, ranks.jsonl, manifest.json, train/val pairs, README.md,
croissant.json, SHA256SUMS.

Bytes are deterministic: fixed key order in the card's files, sorted keys elsewhere, rows sorted
by note_id, no timestamps (ms/query is the one measured value; `record_timing: false` nulls it, and it is
measured only on queries whose model calls were made in this build: `queries_replayed` counts the others).

The release has a version, frozen as a Doubting release's is: manifest.json records it with the config and the
code it was built with, and the release ledger (irdata/ledger.py) refuses other content under a recorded version
before the staged release is replaced. publish_44b publishes it under that version (irdata.publish).
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from ..atomic import atomic_dir, atomic_open, write_json_atomic, write_jsonl_atomic
from ..doubting.gate import check_limits, read_job_stats, sum_jobs
from ..json_files import read_json, read_jsonl
from ..ledger import check_ledger, content_hash
from ..provenance import sha256_file, sha256sums_text
from .card import card_markdown
from .metrics import chance_metrics, metrics_from_ranks
from .mining import RECIPE
from .release_croissant import release_croissant
from .split import SPLITS

RELEASE_FILES = (
    "test.jsonl",
    "results.jsonl",
    "ranks.jsonl",
    "manifest.json",
    "train_pairs.jsonl",
    "val_pairs.jsonl",
    "README.md",
    "croissant.json",
)
# the out keys of package(), one per RELEASE_FILES name
RELEASE_KEYS = ("test", "results", "ranks", "manifest", "train_pairs", "val_pairs", "card", "croissant")
# the data files the manifest lists with their sha256 (written before it; the card and SHA256SUMS after)
DATA_KEYS = ("test", "results", "ranks", "train_pairs", "val_pairs")


def ref(paper: dict, unresolvable_schemes) -> dict:
    """{scheme, id, url} in the card's order, plus resolvable: false for a scheme with no third-party id."""
    out = {"scheme": paper["scheme"], "id": paper["id"], "url": paper["url"]}
    if paper["scheme"] in unresolvable_schemes:
        out["resolvable"] = False
    return out


def card_row(row: dict, papers: dict, unresolvable_schemes) -> dict:
    """One test.jsonl line with exactly the card's fields, in the card's order."""
    return {
        "note_id": row["note_id"],
        "note_url": row["note_url"],
        "kind": row["kind"],
        "positive": ref(papers[row["positive"]], unresolvable_schemes),
        "negatives": [ref(papers[neg["key"]], unresolvable_schemes) for neg in row["negatives"]],
    }


def pair_row(row: dict, papers: dict, unresolvable_schemes) -> dict:
    """A training pair line: the card's fields, each negative also keeping its miner and rank."""
    out = card_row(row, papers, unresolvable_schemes)
    for neg, mined in zip(out["negatives"], row["negatives"]):
        neg["miner"] = mined["miner"]
        neg["rank"] = mined["rank"]
    return out


def _write_rows(path, rows) -> int:
    """A release's JSON lines keep their fields in the card's order."""
    return write_jsonl_atomic(path, rows, sort_keys=False)


def disjointness(mined: dict, papers: dict) -> dict:
    """The proof: no test paper is a positive in train (or val); how many appear as train negatives.

    "test papers" are the papers of the released test queries (the card's 1,534); the same counts
    over every paper the hash puts in test (with or without a query) are given as test_split_papers_*.
    """
    split_papers = {k for k, p in papers.items() if p["split"] == "test"}
    test_papers = {r["positive"] for r in mined["test"]}
    positives = {split: {r["positive"] for r in mined[split]} for split in SPLITS}
    wrong = {split: sorted(k for k in positives[split] if papers[k]["split"] != split) for split in SPLITS}
    train_negs = {n["key"] for r in mined["train"] for n in r["negatives"]}
    val_negs = {n["key"] for r in mined["val"] for n in r["negatives"]}
    seen = sorted(test_papers & train_negs)
    split_seen = split_papers & train_negs
    proof = {
        "test_papers": len(test_papers),
        "test_papers_positive_in_train": len(split_papers & positives["train"]),
        "test_papers_positive_in_val": len(split_papers & positives["val"]),
        "positives_outside_their_split": {s: len(v) for s, v in wrong.items()},
        "test_papers_as_train_negatives": len(seen),
        "test_papers_as_train_negatives_share": round(len(seen) / len(test_papers), 6) if test_papers else None,
        "test_papers_as_train_negatives_ids": seen,
        "test_papers_as_val_negatives": len(test_papers & val_negs),
        "test_split_papers": len(split_papers),
        "test_split_papers_as_train_negatives": len(split_seen),
    }
    if proof["test_papers_positive_in_train"] or proof["test_papers_positive_in_val"] or any(wrong.values()):
        raise AssertionError(f"split is not paper-disjoint: {proof}")
    return proof


def census(rows_out: list[dict], papers: dict, unresolvable_schemes) -> dict:
    """Id schemes of the collection and of the test candidates; which are marked resolvable: false."""
    negatives = [n for r in rows_out for n in r["negatives"]]
    unresolvable_negatives = sum(1 for n in negatives if n.get("resolvable") is False)
    unresolvable_positives = sum(1 for r in rows_out if r["positive"].get("resolvable") is False)
    return {
        "collection": dict(sorted(Counter(p["scheme"] for p in papers.values()).items())),
        "test_positives": dict(sorted(Counter(r["positive"]["scheme"] for r in rows_out).items())),
        "test_negatives": dict(sorted(Counter(n["scheme"] for n in negatives).items())),
        "unresolvable_schemes": sorted(unresolvable_schemes),
        "test_unresolvable": unresolvable_positives + unresolvable_negatives,
        "test_unresolvable_positives": unresolvable_positives,
        "test_unresolvable_negatives": unresolvable_negatives,
        "test_unresolvable_negatives_share": round(unresolvable_negatives / len(negatives), 6) if negatives else None,
    }


def result_line(result: dict, withheld: str | None = None) -> dict:
    """An arm's results.jsonl line; `withheld`: why its metrics are not given (null), an LLM arm over its
    failure limit published with accept_llm_failures."""
    m = dict.fromkeys(result["metrics"]) if withheld else result["metrics"]
    out = {
        "arm": result["arm"],
        "P@1": m["P@1"],
        "P@2": m["P@2"],
        "P@3": m["P@3"],
        "MRR": m["MRR"],
        "mean_rank": m["mean_rank"],
        "ms_per_query": result["ms_per_query"],
        "queries": result["queries"],
        "truncation": {
            "query_chars": result["truncation"]["query_chars"],
            "document_chars": result["truncation"]["document_chars"],
        },
    }
    for extra in ("model", "model_sha256", "prompt_sha256", "chance", "failures", "training", "queries_replayed"):
        if extra in result:
            out[extra] = result[extra]
    if "failures" in result:  # the queries a failed grade left unranked, and whether the metrics are withheld
        out["queries_unranked"] = result["queries_unranked"]
        out["metrics_withheld"] = withheld
    return out


def llm_failures(arm_results: list[dict], arm_paths, gate: dict) -> dict:
    """The LLM arm's failures held to annotation.failure_limits.grade (`gate`: limit, accept) by the release
    gate's check, before any file is written: over the limit the build stops naming the arm, its counts and
    commonest kinds (ReleaseGateError), or with accept_llm_failures the arm is published with its failures
    counted and its metrics withheld. {limit, accepted, over_limit (lines), arms: {arm: counts, withheld}};
    empty without an LLM arm."""
    jobs = {r["arm"]: read_job_stats(path) for r, path in zip(arm_results, arm_paths) if "failures" in r}
    if not jobs:
        return {}
    splits = {f"44b arm {arm}": sum_jobs([job]) for arm, job in jobs.items()}
    failures = {"grade": {**sum_jobs(list(jobs.values())), "splits": splits}}
    problems = check_limits(failures, {"grade": gate["limit"]}, gate["accept"])
    arms = {}
    for arm, counts in zip(jobs, splits.values()):
        over = counts["fraction"] > gate["limit"]
        arms[arm] = {**counts, "withheld": (f"{counts['failed']:,} of {counts['total']:,} {counts['units']} failed, "
                                            f"over annotation.failure_limits.grade ({gate['limit']:.2%}); "
                                            "published with accept_llm_failures") if over else None}
    return {"limit": gate["limit"], "accepted": bool(problems), "over_limit": problems, "arms": arms}


def _close(a, b) -> bool:
    """Equal metrics, up to the order their floats were summed in (None: no queries)."""
    return a == b or (a is not None and b is not None and math.isclose(a, b))


def rank_rows(arm_results: list[dict], arm_paths, withheld=()) -> list[dict]:
    """ranks.jsonl: a row per (arm, ranked query), arms in results.jsonl's order, queries by note_id; candidate_ranks
    are in test.jsonl's candidate order (positive first); none of the arms `withheld` (their metrics would
    recompute from them). An arm whose ranks do not give its metrics is refused."""
    rows = []
    for result, path in zip(arm_results, arm_paths):
        if result["arm"] in withheld:
            continue
        recomputed = metrics_from_ranks(q["rank"] for q in result["ranks"])
        agree = all(_close(recomputed[k], result["metrics"][k]) for k in recomputed)
        if len(result["ranks"]) != result["queries"] or not agree:
            raise ValueError(
                f"{path}: its {len(result['ranks'])} per-query ranks give {recomputed}, not its metrics "
                f"{result['metrics']} over {result['queries']} queries"
            )
        rows += [
            {"arm": result["arm"], "note_id": q["note_id"], "rank": q["rank"], "candidate_ranks": q["candidate_ranks"]}
            for q in sorted(result["ranks"], key=lambda q: q["note_id"])
        ]
    return rows


# which arm kinds use which of a miner's settings: the lexical miner's BM25, the dense miner's model
_MINER_MODELS = {
    "lexical": ("bm25", ("k1", "b", "stopwords", "stemmer")),
    "dense": ("dense", ("model", "normalize", "max_seq_length")),
}


def shared_models(search: dict, arms: dict) -> dict:
    """Per miner: its settings and the arms that score with the same model (negatives that this model
    found hard are hard for those arms: the mining recipe handicaps them against the others)."""
    out = {}
    for miner, (part, keys) in _MINER_MODELS.items():
        mine = {k: search[part][k] for k in keys}
        same = sorted(arm for arm, s in arms.items() if part in s and {k: s[part].get(k) for k in keys} == mine)
        out[miner] = {"settings": mine, "arms_with_the_same_model": same}
    return out


def package(*, mined_train, mined_val, mined_test, report_train, report_val, report_test, raw_papers, raw_reviews,
            papers, split_report, queries_report, arms, test, results, ranks, manifest, train_pairs, val_pairs, card,
            croissant, sums, settings: dict, release_code: dict) -> dict:
    """The package_44b job: stage the release from the work files (the mined rows and mining report of each
    split, the split papers and raw inputs, the split and queries reports, the arms' results); `release_code`: what
    the release's code means, as the planning found it (manifest.json's `code`, irdata/doubting/release_code.py).
    Its files (one folder) are written into a hidden folder beside it, which then replaces that folder whole
    (atomic_dir), so a killed job leaves no half-new staged release and no file of an earlier build; a version the
    release ledger records with other content is refused before (ReleaseFrozenError). publish_44b publishes it
    (irdata.publish)."""
    paths = {
        "papers": papers,
        "split_report": split_report,
        "queries_report": queries_report,
        "mined": {"train": mined_train, "val": mined_val, "test": mined_test},
        "mining_reports": {"train": report_train, "val": report_val, "test": report_test},
        "arms": list(arms),
        "inputs": {"papers": raw_papers, "reviews": raw_reviews},
        "code": dict(release_code),
    }
    out = {"test": test, "results": results, "ranks": ranks, "manifest": manifest, "train_pairs": train_pairs,
           "val_pairs": val_pairs, "card": card, "croissant": croissant, "sums": sums}
    folder = Path(sums).parent
    with atomic_dir(folder) as tmp:
        return _write_release(paths, {key: tmp / Path(path).relative_to(folder) for key, path in out.items()}, settings)


def _write_release(paths: dict, out: dict, settings: dict) -> dict:
    """Assemble the release from the work files.

    paths: papers (papers.jsonl), split_report, queries_report, mined {split: jsonl},
    mining_reports {split: json}, arms [json], inputs {name: path}, code (manifest.json's `code`). out:
    one path per RELEASE_KEYS (the RELEASE_FILES) plus sums.
    """
    folder = Path(out["sums"]).parent

    def release_name(key):  # a file's name in the release, as SHA256SUMS and the manifest list it
        return Path(out[key]).relative_to(folder).as_posix()

    # first: an LLM arm over its failure limit stops the build before any file is written
    arm_results = [read_json(p) for p in paths["arms"]]
    gate = llm_failures(arm_results, paths["arms"], settings["llm_gate"])
    withheld = {arm: f["withheld"] for arm, f in gate.get("arms", {}).items() if f["withheld"]}
    lines = [result_line(r, withheld.get(r["arm"])) for r in arm_results]

    candidates = 1 + settings["mining_recipe"]["negatives"]
    papers = {p["key"]: p for p in read_jsonl(paths["papers"])}
    unresolvable = tuple(settings["unresolvable_schemes"])
    mined = {split: sorted(read_jsonl(paths["mined"][split]), key=lambda r: r["note_id"]) for split in SPLITS}
    proof = disjointness(mined, papers)

    test_rows = [card_row(r, papers, unresolvable) for r in mined["test"]]
    counts_out = {
        "test": _write_rows(out["test"], test_rows),
        "train_pairs": _write_rows(out["train_pairs"], [pair_row(r, papers, unresolvable) for r in mined["train"]]),
        "val_pairs": _write_rows(out["val_pairs"], [pair_row(r, papers, unresolvable) for r in mined["val"]]),
    }
    _write_rows(out["results"], lines)
    counts_out["results"] = len(arm_results)
    counts_out["ranks"] = _write_rows(out["ranks"], rank_rows(arm_results, paths["arms"], withheld))

    split_report = read_json(paths["split_report"])
    queries_report = read_json(paths["queries_report"])
    mining_reports = {split: read_json(paths["mining_reports"][split]) for split in SPLITS}
    manifest = {
        "name": "44b-eval",
        "version": settings["version"],
        # what the card and croissant.json say the release is: its ids, repository id, license, citation
        "release": settings["release"],
        "split": {
            "rule": split_report["rule"],
            "salt": split_report["salt"],
            "key_format": split_report["key_format"],
            "train_below": settings["split"]["train_below"],
            "val_below": settings["split"]["val_below"],
            "unit": "paper; a paper's reviews follow it",
        },
        "counts": {
            "papers": split_report["papers"],
            "reviews": split_report["reviews"],
            "reviews_without_paper": split_report["reviews_without_paper"],
            "queries": queries_report["queries"],
            "queries_too_short": queries_report["too_short"],
            "query_kinds": queries_report["kinds"],
            "queries_lacking_negatives": {s: mining_reports[s]["queries_lacking_negatives"] for s in SPLITS},
            "queries_released": {s: len(mined[s]) for s in SPLITS},
            # the papers of the released queries (their positives): the card's "test papers"
            "papers_released": {s: len({r["positive"] for r in mined[s]}) for s in SPLITS},
            "files": counts_out,
        },
        "queries": {
            "min_chars": queries_report["min_query_chars"],
            "source": "official_review: summary; meta_review: metareview",
        },
        "disjointness": proof,
        "mining": {
            **settings["mining_recipe"],
            "recipe": RECIPE,
            "search": settings["mining_search"],
            "shared_with_arms": shared_models(settings["mining_search"], settings["arms"]),
            "trained_on_train_negatives": sorted(r["arm"] for r in arm_results if "training" in r),
            "indexes": mining_reports["test"].get("indexes"),
            "negatives_by_miner": {s: mining_reports[s]["negatives_by_miner"] for s in SPLITS},
            "screen_counts": {s: mining_reports[s]["screen"] for s in SPLITS},
            "lacking": {s: mining_reports[s]["lacking"] for s in SPLITS},
        },
        "id_schemes": census(test_rows, papers, unresolvable),
        "scoring": {
            **settings["scoring"],
            "arms": [r["arm"] for r in arm_results],
            "arm_settings": settings["arms"],
            "fine_tuned": {r["arm"]: r["training"] for r in arm_results if "training" in r},
            "candidates_per_query": candidates,
            "chance": chance_metrics(candidates),
            "llm_failures": gate,
            # queries an arm answered from the LLM journal of an earlier build: their time is not in its ms/query
            "queries_replayed": {r["arm"]: r["queries_replayed"] for r in arm_results if "queries_replayed" in r},
        },
        "files": {release_name(k): {"rows": counts_out[k], "sha256": sha256_file(out[k])} for k in DATA_KEYS},
        "inputs": {name: {"path": str(p), "sha256": sha256_file(p)} for name, p in sorted(paths["inputs"].items())},
        "config": settings["config"],
        "code": paths["code"],
    }
    write_json_atomic(out["manifest"], manifest)
    with atomic_open(out["card"]) as fh:
        fh.write(card_markdown(manifest, lines))
    # after every other file, before SHA256SUMS, which lists it (the order: release_croissant)
    release_croissant(out, settings["release"], settings["version"])
    sums = sha256sums_text(folder, sorted(release_name(k) for k in RELEASE_KEYS))
    with atomic_open(out["sums"]) as fh:
        fh.write(sums)
    # refused here, the staged release of the version stays as it was
    check_ledger(settings["ledger"], settings["version"], content_hash(sums), settings["version_key"])
    return manifest
