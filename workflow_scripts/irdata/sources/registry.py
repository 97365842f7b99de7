"""Input sources: one module per format a Doubting build reads its collection, queries and qrels from
(`doubting.source.format`), each behind one interface (base.InputSource): the config keys it reads, its input check
(which writes the same checked files whatever the format: the passage store, the TREC qrels of train and dev, the
dev answers, the held-out queries and, where its queries are not files as named, the train and dev query files),
what planning learns of it without a pass over its corpus, and its words on the card and report. The workflow asks
the registry for a build's source; nothing outside this package branches on the format."""

from __future__ import annotations

from .base import CardWords, InputSource
from .beir import BEIR
from .ir_datasets import IR_DATASETS
from .msmarco import MSMARCO

SOURCES: dict[str, InputSource] = {source.name: source for source in (MSMARCO, BEIR, IR_DATASETS)}
# the format of a doubting section that names none (schemas/doubting.schema.yaml's default)
DEFAULT_FORMAT = "msmarco"


def source_of(doubting: dict) -> InputSource:
    """The input source of a build's doubting section (as written or with its defaults filled)."""
    return SOURCES[(doubting.get("source") or {}).get("format", DEFAULT_FORMAT)]


def card_words(doubting: dict) -> CardWords:
    """What the card of a build says of its source (its doubting section, defaults filled): found at planning and
    given to the release's stage as a setting, so that the card's code holds no source module."""
    return source_of(doubting).card_words(doubting, doubting.get("corpus_description"))


def file_keys() -> list[tuple[str, ...]]:
    """Every key path, under a doubting section, that any source reads a file or folder from, each once."""
    return list(dict.fromkeys(key for source in SOURCES.values() for key in source.file_keys))


def train_heldout_conflicts(builds: dict[str, dict], folder) -> list[str]:
    """One line per held-out input of a build that is its train queries (`builds.<name>.<key>: ...`, naming the
    train key too), as its source finds them at planning; relative paths from the working `folder`."""
    return [line for name, built in builds.items()
            for line in source_of(built["doubting"]).train_heldout_conflicts(built["doubting"], folder,
                                                                               f"builds.{name}.")]
