"""The dedup rules of the Doubting MS MARCO card."""

import numpy as np
import pyarrow as pa

from irdata.dedup import dedup_train_queries, normalize_query_text


def queries(pairs):
    return pa.table({"query_id": [p[0] for p in pairs], "text": [p[1] for p in pairs]})


def test_normalisation_lower_case_no_punctuation():
    got = normalize_query_text(pa.array(["What's  the U.S. GDP?", "what’s the us gdp", "¿Qué — es?"]))
    assert got.to_pylist() == ["whats the us gdp", "whats the us gdp", "qué es"]


def test_heldout_then_repeat_rules():
    train = queries([("1", "Capital of Peru?"), ("2", "how tall is k2"), ("3", "How tall is K2!"),
                     ("4", "how  tall is k2"), ("5", "boil an egg"), ("6", "Boil an egg."),
                     ("7", "unique")])
    dev = queries([("d1", "capital of peru"), ("d2", "BOIL AN EGG")])
    test = queries([("t1", "capital of peru"), ("t2", "unique")])
    result = dedup_train_queries(train, [dev, test])
    assert result.collection == ["2"]
    assert result.excluded.to_dict("records") == [
        {"query_id": "1", "reason": "heldout", "duplicate_of": "d1"},   # dev wins over test
        {"query_id": "3", "reason": "repeat", "duplicate_of": "2"},
        {"query_id": "4", "reason": "repeat", "duplicate_of": "2"},
        {"query_id": "5", "reason": "heldout", "duplicate_of": "d2"},
        {"query_id": "6", "reason": "heldout", "duplicate_of": "d2"},  # held-out beats repeat
        {"query_id": "7", "reason": "heldout", "duplicate_of": "t2"},
    ]
    assert result.n_assigned == 7


def test_sample_is_deterministic_and_precedes_dedup():
    ids = [str(i) for i in range(1000)]
    train = queries([(i, f"query {int(i) % 400}") for i in ids])
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
    train = queries([(i, texts[i]) for i in ids])
    heldout = [queries([("h1", "Held out?")])]
    plain = dedup_train_queries(train, heldout, sample_size=5, sample_seed=1)
    shown = dedup_train_queries(train, heldout, sample_size=5, sample_seed=1, with_duplicates=True)
    assert set(plain.collection) <= set(shown.collection) and "20" in shown.collection
    assert shown.excluded.to_dict("records") == [
        {"query_id": "150", "reason": "repeat", "duplicate_of": "20"},
        {"query_id": "170", "reason": "repeat", "duplicate_of": "20"},
        {"query_id": "190", "reason": "heldout", "duplicate_of": "h1"},
    ]
    assert shown.n_assigned == len(set(plain.collection) | {"20", "150", "170", "190"})
    # without a sample every query is assigned anyway: the flag changes nothing
    whole = dedup_train_queries(train, heldout, with_duplicates=True)
    assert whole.collection == dedup_train_queries(train, heldout).collection
