"""The dedup rules of the Doubting MS MARCO card: one text rule (irdata/query_text.py), held-out sources named."""

import json
import unicodedata

import numpy as np
import pyarrow as pa
import pytest

from irdata.dedup import EXCLUDED_COLUMNS, dedup_train_queries, write_query_ids
from irdata.heldout import Source, combine_heldout, sources_record, write_checked_heldout
from irdata.query_text import STEPS, matching_steps, normalize_query_text

TRAIN = Source("train_queries", "queries.train.tsv")
DEV = Source("dev_queries", "queries.dev.tsv")
TEST = Source("heldout_queries[0]", "queries.test.tsv")


def queries(pairs):
    return pa.table({"query_id": [p[0] for p in pairs], "text": [p[1] for p in pairs]})


def records(result, columns=("query_id", "reason", "duplicate_of", "source_key")):
    return [{c: r[c] for c in columns} for r in result.excluded.to_dict("records")]


def test_normalisation_lower_case_no_punctuation():
    got = normalize_query_text(pa.array(["What's  the U.S. GDP?", "what’s the us gdp", "¿Qué — es?"]))
    assert got.to_pylist() == ["whats the us gdp", "whats the us gdp", "qué es"]


CAFE = "what is a café au lait"
# the forms of the issue: each one was kept in train when the held-out text was CAFE
CAFE_FORMS = {
    "decomposed é (macOS)": unicodedata.normalize("NFD", CAFE),
    "fullwidth letters": "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in CAFE),
    "zero-width space": "what is a ca\u200bfé au lait",
    "soft hyphen": "what is a caf\u00adé au lait",
    "byte-order mark": "\ufeffwhat is a café au lait",
    "upper case": "WHAT IS A CAFÉ AU LAIT?",
}


@pytest.mark.parametrize("form", CAFE_FORMS)
def test_a_unicode_form_of_a_held_out_text_is_the_held_out_query(form):
    train = queries([("t1", CAFE_FORMS[form]), ("t2", "how to froth milk")])
    result = dedup_train_queries((TRAIN, train), [(DEV, queries([("d1", CAFE)]))])
    assert result.collection == ["t2"]
    assert records(result) == [
        {"query_id": "t1", "reason": "heldout", "duplicate_of": "d1", "source_key": "dev_queries"}]


@pytest.mark.parametrize("written, same_as", [
    ("ﬁsh and chips", "fish and chips"),         # a ligature: NFKC
    ("STRASSE", "straße"),                     # case folding, not lower case: ß -> ss
    ("ΣΊΣΥΦΟΣ", "σίσυφος"),                    # final sigma
    ("ｃａｆé\u00a0au\u3000lait", "café au lait"),  # fullwidth letters, no-break and ideographic spaces
    ("i\u200dphone\ufe0f", "iphone"),           # a zero-width joiner, a variation selector
    ("\u212a2", "k2"),                          # the Kelvin sign
    ("𝐛𝐨𝐥𝐝 letters", "bold letters"),          # mathematical bold
])
def test_one_rule_makes_unicode_forms_one_text(written, same_as):
    assert normalize_query_text([written]).to_pylist() == normalize_query_text([same_as]).to_pylist()


@pytest.mark.parametrize("a, b", [("café", "cafe"), ("résumé", "resume"), ("istanbul", "İstanbul"), ("x²", "x3")])
def test_distinct_texts_stay_distinct(a, b):
    """Accents are letters, not forms: NFKC and case folding keep them (and Python's casefold keeps the dot of İ)."""
    assert normalize_query_text([a]).to_pylist() != normalize_query_text([b]).to_pylist()


def test_the_rule_agrees_with_python_on_ascii_and_other_rows_alike():
    """ASCII rows take the columnar path, the others Python's: a mixed column gives what each alone gives."""
    texts = ["Plain ASCII?", "Straße", "x", "ＡＢＣ", ""]
    assert normalize_query_text(texts).to_pylist() == [normalize_query_text([t]).to_pylist()[0] for t in texts]
    assert normalize_query_text(pa.chunked_array([texts[:2], texts[2:]])).to_pylist() == \
        normalize_query_text(texts).to_pylist()


def test_each_step_is_counted_where_it_first_made_two_texts_one():
    pairs = [("same", "same"), ("a\u200bb", "ab"), ("ﬁ", "fi"), ("Straße", "strasse"), ("x!", "x"), ("a  b", "a b")]
    got = matching_steps([a for a, _ in pairs], [b for _, b in pairs])
    assert got == {"identical": 1, **{step: 1 for step in STEPS}}


def test_heldout_then_repeat_rules():
    train = queries([("1", "Capital of Peru?"), ("2", "how tall is k2"), ("3", "How tall is K2!"),
                     ("4", "how  tall is k2"), ("5", "boil an egg"), ("6", "Boil an egg."),
                     ("7", "unique")])
    dev = queries([("d1", "capital of peru"), ("d2", "BOIL AN EGG")])
    test = queries([("t1", "capital of peru"), ("t2", "unique")])
    result = dedup_train_queries((TRAIN, train), [(DEV, dev), (TEST, test)])
    assert result.collection == ["2"]
    assert list(result.excluded.columns) == EXCLUDED_COLUMNS
    assert result.excluded.to_dict("records") == [
        {"query_id": "1", "reason": "heldout", "duplicate_of": "d1",   # dev wins over test
         "source_key": "dev_queries", "source_file": "queries.dev.tsv"},
        {"query_id": "3", "reason": "repeat", "duplicate_of": "2",
         "source_key": "train_queries", "source_file": "queries.train.tsv"},
        {"query_id": "4", "reason": "repeat", "duplicate_of": "2",
         "source_key": "train_queries", "source_file": "queries.train.tsv"},
        {"query_id": "5", "reason": "heldout", "duplicate_of": "d2",
         "source_key": "dev_queries", "source_file": "queries.dev.tsv"},
        {"query_id": "6", "reason": "heldout", "duplicate_of": "d2",   # held-out beats repeat
         "source_key": "dev_queries", "source_file": "queries.dev.tsv"},
        {"query_id": "7", "reason": "heldout", "duplicate_of": "t2",
         "source_key": "heldout_queries[0]", "source_file": "queries.test.tsv"},
    ]
    assert result.n_assigned == 7
    # 1: punctuation; 3: punctuation (with case); 4: whitespace; 5: case; 6: punctuation; 7: identical
    assert result.steps == {"identical": 1, "format_characters": 0, "nfkc": 0, "case_folding": 1, "punctuation": 3,
                            "whitespace": 1}


def test_sample_is_deterministic_and_precedes_dedup():
    ids = [str(i) for i in range(1000)]
    train = (TRAIN, queries([(i, f"query {int(i) % 400}") for i in ids]))
    a = dedup_train_queries(train, [], sample_size=100, sample_seed=3)
    b = dedup_train_queries(train, [], sample_size=100, sample_seed=3)
    c = dedup_train_queries(train, [], sample_size=100, sample_seed=4)
    assert a.collection == b.collection and a.n_assigned == 100
    assert a.collection != c.collection
    kept_and_excluded = sorted(a.collection + a.excluded["query_id"].tolist(), key=int)
    assert len(kept_and_excluded) == 100
    # the earlier query of each repeated text stays, in file order
    assert all(np.diff([int(q) for q in a.collection]) > 0)


def test_a_sample_with_duplicates_takes_in_every_excluded_query_and_what_it_repeats():
    ids = [str(i) for i in range(200)]
    texts = {i: f"query {i}" for i in ids} | {"150": "query 20", "170": "QUERY 20!", "190": "held out"}
    train = (TRAIN, queries([(i, texts[i]) for i in ids]))
    heldout = [(TEST, queries([("h1", "Held out?")]))]
    plain = dedup_train_queries(train, heldout, sample_size=5, sample_seed=1)
    shown = dedup_train_queries(train, heldout, sample_size=5, sample_seed=1, with_duplicates=True)
    assert set(plain.collection) <= set(shown.collection) and "20" in shown.collection
    assert records(shown) == [
        {"query_id": "150", "reason": "repeat", "duplicate_of": "20", "source_key": "train_queries"},
        {"query_id": "170", "reason": "repeat", "duplicate_of": "20", "source_key": "train_queries"},
        {"query_id": "190", "reason": "heldout", "duplicate_of": "h1", "source_key": "heldout_queries[0]"},
    ]
    assert shown.n_assigned == len(set(plain.collection) | {"20", "150", "170", "190"})
    # without a sample every query is assigned anyway: the flag changes nothing
    whole = dedup_train_queries(train, heldout, with_duplicates=True)
    assert whole.collection == dedup_train_queries(train, heldout).collection


def test_the_rule_reads_the_checked_files_and_reports_by_source_and_step(tmp_path):
    """write_query_ids reads the sources from inputs.json and the held-out queries from the input check's file, and
    writes ids/train_excluded.tsv with each exclusion's source and a report counting sources and steps."""
    (tmp_path / "train.tsv").write_text("t1\tWhat is a cafe\u0301 au lait?\nt2\tfroth milk\nt3\tfroth  milk\n"
                                        "t4\tthe audit's query\n")
    (tmp_path / "dev.tsv").write_text(f"d1\t{CAFE}\n")
    audit = Source("audit.queries", "audit.tsv")
    sources = [(DEV, queries([("d1", CAFE)])), (audit, queries([("a1", "The audit's query")]))]
    held, _ = combine_heldout(sources)
    write_checked_heldout(held, tmp_path / "heldout.tsv")
    (tmp_path / "inputs.json").write_text(json.dumps({"train_source": TRAIN.record(),
                                                      "heldout_sources": sources_record(sources, held)}))
    out = {name: tmp_path / name for name in ("collection.txt", "excluded.tsv", "dev_all.txt", "dedup.json")}
    settings = {"train_sample": None, "dev_sample": None, "train_seed": 0, "dev_seed": 0,
                "train_with_duplicates": False}
    counts = write_query_ids(validated=tmp_path / "inputs.json", train_queries=tmp_path / "train.tsv",
                             dev_queries=tmp_path / "dev.tsv", heldout_queries=tmp_path / "heldout.tsv",
                             train_collection=out["collection.txt"], train_excluded=out["excluded.tsv"],
                             dev_all=out["dev_all.txt"], report=out["dedup.json"], settings=settings)
    assert out["excluded.tsv"].read_text().splitlines() == [
        "\t".join(EXCLUDED_COLUMNS),
        "t1\theldout\td1\tdev_queries\tqueries.dev.tsv",
        "t3\trepeat\tt2\ttrain_queries\tqueries.train.tsv",
        "t4\theldout\ta1\taudit.queries\taudit.tsv"]
    assert out["collection.txt"].read_text().split() == ["t2"]
    report = json.loads(out["dedup.json"].read_text())
    assert report == counts
    assert report["excluded_by_source"] == [
        {"reason": "heldout", "key": "dev_queries", "file": "queries.dev.tsv", "queries": 1},
        {"reason": "repeat", "key": "train_queries", "file": "queries.train.tsv", "queries": 1},
        {"reason": "heldout", "key": "audit.queries", "file": "audit.tsv", "queries": 1}]
    # t1: its accent decomposed, its case and its "?" (completed by the punctuation step); t3: a space; t4: its case
    assert report["matched_by_step"] == {"identical": 0, "format_characters": 0, "nfkc": 0, "case_folding": 1,
                                         "punctuation": 1, "whitespace": 1}


def test_tables_without_their_sources_are_named_by_their_place():
    train = queries([("1", "ＣＡＦＥ"), ("2", "cafe")])
    result = dedup_train_queries(train, [queries([("d1", "tea")]), queries([("t1", "Café")])])
    assert records(result, EXCLUDED_COLUMNS) == [
        {"query_id": "2", "reason": "repeat", "duplicate_of": "1", "source_key": "train", "source_file": "train"}]
    result = dedup_train_queries(train, [queries([("t1", "cafe!")])])
    assert records(result, EXCLUDED_COLUMNS)[0]["source_key"] == "heldout[0]"
