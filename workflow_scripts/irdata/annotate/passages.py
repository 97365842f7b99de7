"""Random access to query texts by id, for the LLM stages (passages come from irdata.passage_store)."""

from __future__ import annotations

import pandas as pd

from ..query_files import read_queries


class TextStore:
    """Texts keyed by id, held as one Arrow column plus a hash index (no per-row Python objects
    until a text is asked for)."""

    def __init__(self, ids, texts):
        self._index = pd.Index(ids.to_numpy(zero_copy_only=False))
        self._texts = texts

    @classmethod
    def queries(cls, path) -> TextStore:
        table = read_queries(path)
        return cls(table.column("query_id"), table.column("text"))

    def __contains__(self, key) -> bool:
        return key in self._index

    def __len__(self) -> int:
        return len(self._index)

    def get(self, key: str) -> str | None:
        try:
            position = self._index.get_loc(key)
        except KeyError:
            return None
        return self._texts[position].as_py()

    def title(self, key: str) -> None:
        """No titles: texts read from `qid<TAB>text` files have none (PassageStore has them for a BEIR corpus)."""
        return None

    def __getitem__(self, key: str) -> str:
        text = self.get(key)
        if text is None:
            raise KeyError(key)
        return text
