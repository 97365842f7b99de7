"""The one rule by which the dedup compares query texts (the dataset card states it; irdata/dedup.py applies it).

Two texts are the same query when they are equal after these steps, in this order:

1. format_characters: format characters (Unicode category Cf: the zero-width space and joiners, the soft hyphen,
   the byte-order mark, direction marks) and the other default-ignorable code points (variation selectors, the
   combining grapheme joiner, Hangul fillers, tag characters) removed: they do not show, so they do not count;
2. nfkc: Unicode NFKC, so that one text written in several forms is one (an accent composed or decomposed, as
   macOS writes file contents; fullwidth letters; a ligature such as "ﬁ"; a Kelvin sign);
3. case_folding: Python's str.casefold ("ß" -> "ss", final sigma -> sigma), then NFKC again, since case folding
   may leave a text outside NFKC;
4. punctuation: Unicode punctuation (category P) removed;
5. whitespace: whitespace runs (what Python's str.split() splits on: any Unicode space, tabs and line ends) collapsed
   to one space, leading and trailing ones removed.

Steps 2 and 3 change no ASCII text but its case: ASCII rows (nearly all of MS MARCO) take pyarrow's ASCII lower
case, the other rows Python's unicodedata one by one (case folding has no columnar kernel, and one Unicode
database for NFKC and case folding keeps the two steps consistent). Steps 1, 4 and 5 are columnar regular
expressions.
"""

from __future__ import annotations

import itertools
import unicodedata

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

STEPS = ("format_characters", "nfkc", "case_folding", "punctuation", "whitespace")
# the level at which two texts are the same before any step
IDENTICAL = "identical"

# Cf, and the default-ignorable code points outside Cf (Unicode's DerivedCoreProperties.txt,
# Default_Ignorable_Code_Point): combining grapheme joiner, Hangul and Khmer fillers, Mongolian and other variation
# selectors, reserved ignorables, tags and the variation selectors supplement
_IGNORABLE = (r"[\p{Cf}\x{034F}\x{115F}\x{1160}\x{17B4}\x{17B5}\x{180B}-\x{180F}\x{2065}\x{3164}"
              r"\x{FE00}-\x{FE0F}\x{FFA0}\x{FFF0}-\x{FFF8}\x{E0000}-\x{E0FFF}]+")
_PUNCTUATION = r"\p{P}+"
# what Python's str.split() splits on: the ASCII whitespace and separators, NEL and every Unicode space
_WHITESPACE = r"[\t-\r\x{1C}-\x{1F}\x{85}\p{Z}]+"

RULE_TEXT = ("format characters (zero-width characters, soft hyphens, byte-order marks and the other "
             "default-ignorable code points) removed, Unicode NFKC normalization, case folding, punctuation "
             "removed and whitespace collapsed")


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text.casefold())


def _string_array(texts) -> pa.Array:
    if isinstance(texts, pa.ChunkedArray):
        texts = texts.combine_chunks()
    elif not isinstance(texts, pa.Array):
        texts = pa.array(texts, pa.string())
    return texts.cast(pa.string())


def _levels(texts: pa.Array):
    """The texts after each step of the rule, in order (lazily: a consumer that stops early computes no more).

    Steps 1-3 run on the texts that are not ASCII alone (the ASCII ones take the case step, columnar)."""
    other = pc.invert(pc.fill_null(pc.string_is_ascii(texts), True))
    rows = np.flatnonzero(other.to_numpy(zero_copy_only=False))
    unicode_rows = texts.take(pa.array(rows, pa.int64()))

    def merged(base: pa.Array) -> pa.Array:
        return pc.replace_with_mask(base, other, unicode_rows) if len(rows) else base

    def python(step, values: pa.Array) -> pa.Array:
        return pa.array([step(t) for t in values.to_pylist()], pa.string())

    unicode_rows = pc.replace_substring_regex(unicode_rows, _IGNORABLE, "")
    yield merged(texts)
    unicode_rows = python(_nfkc, unicode_rows)
    yield merged(texts)
    unicode_rows = python(_fold, unicode_rows)
    text = merged(pc.ascii_lower(texts))
    yield text
    text = pc.replace_substring_regex(text, _PUNCTUATION, "")
    yield text
    yield pc.utf8_trim_whitespace(pc.replace_substring_regex(text, _WHITESPACE, " "))


def normalize_query_text(texts, steps: int = len(STEPS)) -> pa.Array:
    """The texts under the module's rule (its first `steps` steps)."""
    text = _string_array(texts)
    for text in itertools.islice(_levels(text), steps):
        pass
    return text


def matching_steps(texts, others) -> dict[str, int]:
    """For pairs of texts that the whole rule makes equal (`texts[i]`, `others[i]`), how many first became equal
    at each step (`identical`: equal as written), in the rule's order."""
    texts, others = _string_array(texts), _string_array(others)
    level = np.full(len(texts), -1)
    pairs = itertools.chain([(texts, others)], zip(_levels(texts), _levels(others)))
    for step, (a, b) in enumerate(pairs):
        level[(level < 0) & pc.equal(a, b).to_numpy(zero_copy_only=False)] = step
    return {name: int(np.count_nonzero(level == step)) for step, name in enumerate((IDENTICAL, *STEPS))}
