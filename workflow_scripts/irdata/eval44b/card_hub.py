"""The Hugging Face parts of the 44b card (spec/44b-eval.card.txt): the YAML front matter and the fields of
How to use, Licensing and Citation (their prose is in the card's template). The numbers come from the
manifest; the repository id, license, license note and citation are the release's own, from the config
(eval44b: repo_id, license, license_note, citation; the schema's defaults are the spec's), recorded in the
manifest's `release`. A build whose ids are invented
(eval44b.ids_refer_to: invented, the demo) gets no instructions to fetch text at its urls.

The front matter's `configs:` maps each config and split to its JSON lines file, so that
`datasets.load_dataset(<release folder>)` works offline; a split whose file has no rows is left out
(datasets cannot load one) and a config without any split with it.
"""

from __future__ import annotations

import json

from .. import card_text
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
TAGS = ["reranking", "hard-negatives", "peer-review", "scientific-papers"]


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


def front_matter(manifest: dict) -> str:
    """The card's YAML header; values are JSON strings (valid YAML scalars, whatever they hold)."""
    files = manifest["files"]
    examples = sum(files[name]["rows"] for name in QUERY_FILES)
    metadata = {"pretty_name": PRETTY_NAME, "license": manifest["release"]["license"], "language": ["en"],
                "task_categories": ["text-retrieval"], "task_ids": ["document-retrieval"],
                "size_categories": [size_category(examples)], "tags": TAGS}
    return card_text.front_matter(metadata, declared_configs(files), scalar=json.dumps)


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


def hub_fields(manifest: dict) -> dict:
    """The fields of How to use, Licensing and Citation (templates/card/README.md.tmpl)."""
    configs = declared_configs(manifest["files"])
    release = manifest["release"]
    return {
        "configs": "; ".join(f"{c}: " + ", ".join(f"{s} = {n}" for s, n in splits) for c, splits in configs.items()),
        "loading_head": card_text.loading_head(release["repo_id"], release["on_hub"], release["folder"]),
        "loading": "".join(line + "\n" for line in _loading(configs)),
        "text_lines": "\n".join(_text_lines(manifest)),
        "license_note": release["license_note"],
        "contact": ("Questions, results, or a model to add to the table? Open a discussion in the Community tab."
                    if release["on_hub"] else
                    "This build is not on the Hugging Face Hub, so it has no Community tab: ask whoever built it. "
                    "Once it is published there (eval44b.repo_id, on_hub: true), its Community tab takes questions."),
        "citation": (f"```bibtex\n{release['citation']}\n```" if release["citation"] else
                     "This build has no citation entry (eval44b.citation is null)."),
    }
