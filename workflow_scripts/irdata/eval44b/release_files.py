"""The files of the 44b Eval release, by name: what package_44b stages, publish_44b publishes and planning checks
(irdata/frozen.py), in a module of its own so that publishing imports no stage."""

RELEASE_FILES = {"test": "test.jsonl", "results": "results.jsonl", "ranks": "ranks.jsonl",
                 "manifest": "manifest.json", "train_pairs": "train_pairs.jsonl", "val_pairs": "val_pairs.jsonl",
                 "card": "README.md", "croissant": "croissant.json", "sums": "SHA256SUMS"}
