"""The Hugging Face parts of the 44b card (spec/44b-eval.card.txt): the YAML front matter, How to use,
Licensing, Contact and Citation. The numbers come from the manifest; the repository id, license, license
note and citation are the release's own, from the config (eval44b: repo_id, license, license_note, citation;
the schema's defaults are the spec's), recorded in the manifest's `release`. A build whose ids are invented
(eval44b.ids_refer_to: invented, the demo) gets no instructions to fetch text at its urls.

The front matter's `configs:` maps each config and split to its JSON lines file, so that
`datasets.load_dataset(<release folder>)` works offline; a split whose file has no rows is left out
(datasets cannot load one) and a config without any split with it.
"""

from __future__ import annotations

import json

from ..hub_sizes import size_category

PRETTY_NAME = "44b Eval"
INVENTED = "invented"  # eval44b.ids_refer_to of a build whose ids resolve nowhere
# config -> (split, file) in card order; the first declared config is the default
CONFIGS = (
    ("default", (("test", "test.jsonl"),)),
    ("pairs", (("train", "train_pairs.jsonl"), ("validation", "val_pairs.jsonl"))),
    ("results", (("test", "results.jsonl"),)),
    ("ranks", (("test", "ranks.jsonl"),)),
)
# the files whose rows are the dataset's examples (queries): the size category counts them
QUERY_FILES = ("test.jsonl", "train_pairs.jsonl", "val_pairs.jsonl")


def input_path(manifest: dict, name: str) -> str:
    """The path of an input file of the build (manifest `inputs`: papers, reviews), as the config named it."""
    return manifest["inputs"][name]["path"]


def declared_configs(files: dict) -> dict[str, list[tuple[str, str]]]:
    """{config: [(split, file), ...]} of the splits whose file has rows (manifest `files`)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for config, splits in CONFIGS:
        kept = [(split, name) for split, name in splits if files.get(name, {}).get("rows")]
        if kept:
            out[config] = kept
    return out


def front_matter(manifest: dict) -> list[str]:
    """The card's YAML header; values are JSON strings (valid YAML scalars, whatever they hold)."""
    files = manifest["files"]
    examples = sum(files[name]["rows"] for name in QUERY_FILES)
    q = json.dumps
    lines = [
        "---",
        f"pretty_name: {q(PRETTY_NAME)}",
        f"license: {q(manifest['release']['license'])}",
        "language:",
        f"- {q('en')}",
        "task_categories:",
        f"- {q('text-retrieval')}",
        "task_ids:",
        f"- {q('document-retrieval')}",
        "size_categories:",
        f"- {q(size_category(examples))}",
        "tags:",
        *(f"- {q(tag)}" for tag in ("reranking", "hard-negatives", "peer-review", "scientific-papers")),
        "configs:",
    ]
    for i, (config, splits) in enumerate(declared_configs(files).items()):
        lines.append(f"- config_name: {q(config)}")
        if i == 0:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split, name in splits:
            lines += [f"  - split: {q(split)}", f"    path: {q(name)}"]
    return lines + ["---", ""]


def _loading(configs: dict) -> list[str]:
    """The `datasets` lines of How to use, one per declared config."""
    what = {
        "default": 'test = load_dataset(repo, split="test")  # test.jsonl: a row a query',
        "pairs": 'pairs = load_dataset(repo, "pairs")  # '
        + " and ".join(f"{split} ({name})" for split, name in configs.get("pairs", [])),
        "results": 'results = load_dataset(repo, "results", split="test")  # results.jsonl: a row an arm',
        "ranks": 'ranks = load_dataset(repo, "ranks", split="test")  # ranks.jsonl: a row an (arm, query)',
    }
    lines = [what[config] for config in configs]
    if "default" in configs:
        lines.append("row = test[0]  # positive and negatives as {scheme, id, url} dicts")
    return lines


def _text_lines(manifest: dict) -> list[str]:
    """The plain JSON lines loop of How to use: where each text is, at its url or, for invented ids, in the
    build's input files."""
    if manifest["release"]["ids_refer_to"] == INVENTED:
        return [
            '    query_id = r["note_id"]  # the review: its summary in ' + input_path(manifest, "reviews"),
            '    candidates = [r["positive"], *r["negatives"]]  # title + abstract: the paper of each {scheme, id} in '
            + input_path(manifest, "papers"),
        ]
    return [
        '    query_url = r["note_url"]  # fetch the review\'s summary here',
        '    candidates = [r["positive"], *r["negatives"]]  # fetch title + abstract at each ["url"]',
    ]


def hub_sections(manifest: dict) -> list[str]:
    """How to use, Licensing, Contact and Citation, as markdown lines."""
    candidates = manifest["scoring"]["candidates_per_query"]
    configs = declared_configs(manifest["files"])
    release = manifest["release"]
    citation = (["```bibtex", release["citation"], "```"] if release["citation"] else
                ["This build has no citation entry (eval44b.citation is null)."])
    return [
        "## How to use",
        "",
        "With `datasets` (the configs of this card's header: "
        + "; ".join(f"{c}: " + ", ".join(f"{s} = {n}" for s, n in splits) for c, splits in configs.items())
        + "):",
        "",
        "```python",
        "from datasets import load_dataset",
        "",
        f'repo = "{release["repo_id"]}"  # or the path of a local copy of this folder',
        *_loading(configs),
        "```",
        "",
        "Or as plain JSON lines, from a copy of this folder:",
        "",
        "```python",
        "import json",
        "",
        'rows = [json.loads(line) for line in open("test.jsonl", encoding="utf-8")]',
        "for r in rows:",
        *_text_lines(manifest),
        f"    # score all {candidates} with your reranker; the positive is at index 0 before you shuffle",
        "```",
        "",
        "Each arm's metrics, recomputed from ranks.jsonl (the rank of the positive among the "
        f"{candidates}; candidate_ranks holds every candidate's rank in test.jsonl's order, positive first):",
        "",
        "```python",
        "import json",
        "from collections import defaultdict",
        "",
        "ranks = defaultdict(list)",
        'for line in open("ranks.jsonl", encoding="utf-8"):',
        "    row = json.loads(line)",
        '    ranks[row["arm"]].append(row["rank"])',
        "for arm, rs in ranks.items():",
        "    n = len(rs)",
        '    print(f"{arm}: P@1 {sum(r <= 1 for r in rs) / n:.3f}, P@3 {sum(r <= 3 for r in rs) / n:.3f}, "',
        '          f"MRR {sum(1 / r for r in rs) / n:.3f}, mean rank {sum(rs) / n:.3f}")',
        "```",
        "",
        "## Licensing",
        "",
        release["license_note"],
        "",
        "## Contact",
        "",
        "Questions, results, or a model to add to the table? Open a discussion in the Community tab.",
        "",
        "## Citation",
        "",
        *citation,
    ]
