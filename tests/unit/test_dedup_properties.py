"""Property tests (hypothesis) of the dedup's one text rule (irdata/query_text.py) and of the hold-out: the columnar
rule is the rule as the card states it, row by row; a held-out text written in any other Unicode form (decomposed,
fullwidth, with invisible characters, ligatures, other cases, spaces or punctuation, in any combination) leaves
train as a duplicate of its held-out query, named with its source; and whatever the train and held-out queries, no
train query that is kept has the text of a held-out query or of another kept one."""

from __future__ import annotations

import unicodedata

import pyarrow as pa
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from irdata.dedup import REASON_HELDOUT, dedup_train_queries
from irdata.heldout import Source
from irdata.query_text import normalize_query_text

EXAMPLES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Default_Ignorable_Code_Point outside category Cf (Unicode's DerivedCoreProperties.txt), written out here apart from
# the module's pattern
OTHER_IGNORABLE = {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x2065, 0x3164,
                   *range(0xFE00, 0xFE10), 0xFFA0, *range(0xFFF0, 0xFFF9), *range(0xE0000, 0xE1000)}


def rule(text: str) -> str:
    """The card's rule, one text at a time, in plain Python."""
    text = "".join(c for c in text if unicodedata.category(c) != "Cf" and ord(c) not in OTHER_IGNORABLE)
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    return " ".join(text.split())


# any assigned character (a lone surrogate is no text)
any_text = st.text(st.characters(blacklist_categories=("Cs", "Cn")), max_size=24)


@EXAMPLES
@given(st.lists(any_text, max_size=8))
def test_the_columnar_rule_is_the_rule_row_by_row(texts):
    assert normalize_query_text(texts).to_pylist() == [rule(t) for t in texts]


# -- held-out texts and their other forms ------------------------------------------------------------------------

# words of letters from the scripts queries are written in, with accents, digits, and punctuation between
letters = st.characters(whitelist_categories=("Ll", "Lu", "Lo", "Nd"), max_codepoint=0x2FFF) | st.sampled_from(
    "éèçñüößøåæœαβγςσκξабвёжзйіїćčłśžấ")
words = st.text(letters, min_size=1, max_size=8)
heldout_texts = st.lists(words, min_size=1, max_size=5).flatmap(
    lambda ws: st.tuples(*(st.sampled_from(["", "?", ",", "'s", "."]) for _ in ws)).map(
        lambda ps: " ".join(w + p for w, p in zip(ws, ps))))

INVISIBLE = ["\u200b", "\u200c", "\u200d", "\u2060", "\u00ad", "\ufeff", "\u200e", "\u200f", "\ufe0f", "\u034f",
             "\u180e", "\U000e0041", "\u2066", "\u2069"]
SPACES = ["\u00a0", "\u3000", "\u2002", "\u202f", "\t", "  ", " \u2009"]
LIGATURES = {"ffi": "\ufb03", "ffl": "\ufb04", "ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02", "st": "\ufb06"}


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def bold(text: str) -> str:
    """ASCII letters as mathematical bold ones."""
    return "".join(chr(0x1D400 + ord(c) - 65) if "A" <= c <= "Z" else chr(0x1D41A + ord(c) - 97) if "a" <= c <= "z"
                   else c for c in text)


def ligatures(text: str) -> str:
    for plain, joined in LIGATURES.items():
        text = text.replace(plain, joined)
    return text


def upper(text: str) -> str:
    """Upper case, letter by letter, where case folding takes the letter back (not the dotless ı, whose capital
    folds to a dotted i)."""
    return "".join(c.upper() if c.upper().casefold() == c.casefold() else c for c in text)


@st.composite
def invisible(draw, text: str) -> str:
    chars = list(text)
    for _ in range(draw(st.integers(1, 3))):
        chars.insert(draw(st.integers(0, len(chars))), draw(st.sampled_from(INVISIBLE)))
    return "".join(chars)


@st.composite
def spaced(draw, text: str) -> str:
    return draw(st.sampled_from(["", " ", "\u3000"])) + text.replace(" ", draw(st.sampled_from(SPACES)))


@st.composite
def punctuated(draw, text: str) -> str:
    before, after = draw(st.sampled_from(["", "¿", "\u201c", "("])), draw(st.sampled_from(["", "?", "!", "\u2026"]))
    return before + text.replace("'", "\u2019") + after


FORMS = {
    "nfd": lambda draw, t: unicodedata.normalize("NFD", t),
    "nfkd": lambda draw, t: unicodedata.normalize("NFKD", t),
    "fullwidth": lambda draw, t: fullwidth(t),
    "bold": lambda draw, t: bold(t),
    "ligatures": lambda draw, t: ligatures(t),
    "upper": lambda draw, t: upper(t),
    "invisible": lambda draw, t: draw(invisible(t)),
    "spaces": lambda draw, t: draw(spaced(t)),
    "punctuation": lambda draw, t: draw(punctuated(t)),
}


@st.composite
def another_form(draw, text: str) -> tuple[str, list[str]]:
    """`text` under a few of FORMS, in any order."""
    names = draw(st.lists(st.sampled_from(sorted(FORMS)), min_size=1, max_size=4))
    for name in names:
        text = FORMS[name](draw, text)
    return text, names


def table(ids, texts) -> pa.Table:
    return pa.table({"query_id": pa.array(ids, pa.string()), "text": pa.array(texts, pa.string())})


TRAIN, DEV, TEST = (Source("train_queries", "train.tsv"), Source("dev_queries", "dev.tsv"),
                    Source("heldout_queries[0]", "test.tsv"))


@EXAMPLES
@given(st.data())
def test_a_held_out_text_in_another_form_leaves_train_naming_its_query_and_source(data):
    text = data.draw(heldout_texts)
    assume(rule(text))
    written, forms = data.draw(another_form(text))
    assume(written != text)  # a form that changed nothing tests nothing
    held_by_test = data.draw(st.booleans())
    dev = table(["d1"], ["an unrelated question"] if held_by_test else [text])
    test = table(["t1"], [text])
    result = dedup_train_queries((TRAIN, table(["q1", "q2"], [written, "some other train query"])),
                                 [(DEV, dev), (TEST, test)])
    assert result.collection == ["q2"], (forms, written)
    assert result.excluded.to_dict("records") == [{
        "query_id": "q1", "reason": REASON_HELDOUT, "duplicate_of": "t1" if held_by_test else "d1",
        "source_key": TEST.key if held_by_test else DEV.key, "source_file": TEST.file if held_by_test else DEV.file}]


@EXAMPLES
@given(st.data())
def test_no_kept_train_query_has_a_held_out_text_or_another_kept_ones(data):
    held = data.draw(st.lists(heldout_texts, min_size=1, max_size=6))
    plain = data.draw(st.lists(heldout_texts, max_size=6))
    # train: other forms of held-out texts and of its own texts, and those texts, in any order
    pool = held + plain
    train = data.draw(st.lists(st.sampled_from(pool), max_size=12))
    train = [data.draw(another_form(t))[0] if data.draw(st.booleans()) else t for t in train]
    split = data.draw(st.integers(0, len(held)))
    sources = [(DEV, table([f"d{i}" for i in range(split)], held[:split])),
               (TEST, table([f"t{i}" for i in range(len(held) - split)], held[split:]))]
    result = dedup_train_queries((TRAIN, table([f"q{i}" for i in range(len(train))], train)), sources)
    text_of = dict(zip([f"q{i}" for i in range(len(train))], train))
    kept = [rule(text_of[q]) for q in result.collection]
    assert not set(kept) & {rule(t) for t in held}
    assert len(kept) == len(set(kept))
    assert len(result.collection) + len(result.excluded) == len(train)
    # each held-out exclusion names the first source that holds its text
    for row in result.excluded.to_dict("records"):
        if row["reason"] == REASON_HELDOUT:
            first = next(source for source, t in sources if rule(text_of[row["query_id"]]) in
                         {rule(x) for x in t.column("text").to_pylist()})
            assert row["source_key"] == first.key

