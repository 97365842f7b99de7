"""The false-negative screen: what may never be a negative of a query.

A candidate is rejected when it is the positive (same key), when it shares the positive's
Semantic Scholar id, or when its title is near-identical to the positive's. Among the chosen
negatives the same three tests apply pairwise, so no paper (or copy of one) is chosen twice.

Title normalisation (`nfkd-casefold-alnum`): Unicode NFKD, combining marks dropped, casefold,
every run of non-alphanumeric characters becomes one space, trimmed. Two titles are
near-identical when difflib.SequenceMatcher(autojunk=False).ratio() of their normalised forms
is >= the threshold (0.9 by default), or when the normalised forms are equal.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

NORMALISATIONS = ("nfkd-casefold-alnum",)
_NON_ALNUM = re.compile(r"[\W_]+", re.UNICODE)


def normalise_title(title: str, method: str = "nfkd-casefold-alnum") -> str:
    if method not in NORMALISATIONS:
        raise ValueError(f"unknown title normalisation {method!r}; expected one of {NORMALISATIONS}")
    decomposed = unicodedata.normalize("NFKD", title)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return _NON_ALNUM.sub(" ", stripped.casefold()).strip()


def title_similarity(a: str, b: str) -> float:
    """Similarity of two normalised titles in [0, 1]."""
    if a == b:
        return 1.0
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return matcher.ratio()


def near_identical(a: str, b: str, threshold: float) -> bool:
    """True when normalised titles a and b are near-identical (cheap upper bounds first)."""
    if a == b:
        return True
    if not a or not b:
        return False
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    return (
        matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold and matcher.ratio() >= threshold
    )


class Screen:
    """Tests candidates against a positive and against each other.

    `papers` maps key -> {"title", "s2_id"}; titles are normalised once.
    """

    def __init__(self, papers: dict, threshold: float = 0.9, method: str = "nfkd-casefold-alnum"):
        self.threshold = threshold
        self.s2 = {key: p.get("s2_id") for key, p in papers.items()}
        self.title = {key: normalise_title(p["title"], method) for key, p in papers.items()}

    def clash(self, a: str, b: str) -> str | None:
        """Why papers a and b count as the same work, or None when they are distinct."""
        if a == b:
            return "same_paper"
        s2a, s2b = self.s2.get(a), self.s2.get(b)
        if s2a is not None and s2a == s2b:
            return "same_s2_id"
        if near_identical(self.title[a], self.title[b], self.threshold):
            return "near_identical_title"
        return None

    def reject(self, candidate: str, positive: str) -> str | None:
        """Why `candidate` may not be a negative of a query whose positive is `positive` (None: it may)."""
        reason = self.clash(candidate, positive)
        return "is_positive" if reason == "same_paper" else reason
