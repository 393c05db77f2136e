"""The array-built TF-IDF vectors (`word_vectors.py`) are bit for bit those of the per-text
formula that similar cases and duplicate checks were defined with."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from incidents.search import profiles
from incidents.search import word_vectors as word_vectors_module
from incidents.search.word_vectors import COUNT_TABLE, word_vectors


@pytest.fixture(autouse=True, params=["pair table", "np.unique"])
def pair_ranking(request, monkeypatch):
    """Every test twice: the (count, column) pairs ranked through the table, and past its
    size through np.unique (`word_vectors._strongest_first`)."""
    if request.param == "np.unique":
        monkeypatch.setattr(word_vectors_module, "PAIR_TABLE", 0)
    return request.param


def per_text(
    texts: list[Counter], kept: int, shared: bool = False
) -> tuple[dict[str, float], list[dict[str, float]]]:
    """The reference: one dict per text, words on every text (and with `shared`, on only
    one) dropped, the `kept` strongest words (ties by word), divided by the norm of their
    weights added strongest first."""
    n = max(len(texts), 1)
    df: Counter = Counter(w for counts in texts for w in counts)
    idf = {w: math.log(n / d) for w, d in df.items() if (2 if shared else 1) <= d < n}
    vectors = []
    for counts in texts:
        vector = {w: (1 + math.log(c)) * idf[w] for w, c in counts.items() if w in idf}
        vector = dict(sorted(vector.items(), key=lambda kv: (-kv[1], kv[0]))[:kept])
        norm = math.sqrt(sum(v * v for v in vector.values())) or 1.0
        vectors.append({w: v / norm for w, v in vector.items()})
    return idf, vectors


def test_ties_go_to_the_first_word_and_a_word_on_every_text_is_dropped():
    texts = [
        Counter({"nccl": 1, "zeta": 1, "alpha": 1, "everywhere": 3}),
        Counter({"nccl": 2, "everywhere": 1}),
        Counter({"everywhere": 1, "timeout": 4}),
        Counter({"everywhere": 2}),
    ]
    vectors = word_vectors([(t,) for t in texts], kept=2)
    # alpha and zeta tie with the strongest weight (one text each, once) and are kept over nccl
    assert vectors.vector(0) == pytest.approx({"alpha": 1 / math.sqrt(2), "zeta": 1 / math.sqrt(2)})
    assert list(vectors.vector(0)) == ["alpha", "zeta"]
    assert list(vectors.vector(1)) == ["nccl"] and vectors.vector(1)["nccl"] == 1.0
    assert vectors.vector(3) == {}
    assert "everywhere" not in vectors.words
    assert dict(zip(vectors.words, vectors.idf.tolist(), strict=True)) == {
        "alpha": math.log(4),
        "nccl": math.log(2),
        "timeout": math.log(4),
        "zeta": math.log(4),
    }


def test_shared_vectors_leave_out_the_words_on_one_text_only():
    texts = [
        Counter({"nccl": 1, "hang": 1, "zorblax": 3}),
        Counter({"nccl": 1, "timeout": 1}),
        Counter({"hang": 1, "timeout": 1, "quintafrend": 1}),
        Counter({"pcie": 1}),
    ]
    every = word_vectors([(t,) for t in texts], kept=5)
    shared = word_vectors([(t,) for t in texts], kept=5, shared=True)
    assert set(every.vector(0)) == {"nccl", "hang", "zorblax"}
    # zorblax, the strongest word of text 0, is on no other text: it only made the norm.
    assert shared.vector(0) == pytest.approx({"nccl": 1 / math.sqrt(2), "hang": 1 / math.sqrt(2)})
    assert shared.vector(0)["nccl"] > every.vector(0)["nccl"]
    assert shared.vector(3) == {} and shared.words == ["hang", "nccl", "timeout"]
    assert dict(zip(shared.words, shared.idf.tolist(), strict=True)) == {
        "hang": math.log(2),
        "nccl": math.log(2),
        "timeout": math.log(2),
    }

    # The cosine of text 0 and text 1 counts only nccl, which both share: higher once the
    # words they cannot share leave the norms.
    def cosine(vectors):
        a, b = vectors.vector(0), vectors.vector(1)
        return sum(a[w] * b[w] for w in a.keys() & b.keys())

    assert cosine(shared) == pytest.approx(0.5) and cosine(every) < 0.3


def test_counts_given_in_parts_add_up():
    split = (Counter({"gpu": 1}), Counter({"gpu": 2, "xid": 1}))
    parts = word_vectors([split, (Counter({"ib": 1}),)], kept=5)
    whole = word_vectors([(Counter({"gpu": 3, "xid": 1}),), (Counter({"ib": 1}),)], kept=5)
    assert parts.vector(0) == whole.vector(0)
    assert parts.vector(0)["gpu"] > parts.vector(0)["xid"]


@pytest.mark.parametrize("top", [3, COUNT_TABLE + 5])
def test_counts_past_the_table_of_logarithms_give_the_same_bits(top):
    texts = [
        Counter({"gpu": top, "xid": 7, "ib": 1}),
        Counter({"gpu": 1, "nvlink": top // 2 + 1}),
        Counter({"pcie": 2}),
    ]
    idf, expected = per_text(texts, kept=5)
    vectors = word_vectors([(t,) for t in texts], kept=5)
    assert dict(zip(vectors.words, vectors.idf.tolist(), strict=True)) == idf
    for row, vector in enumerate(expected):
        assert list(vectors.vector(row).items()) == list(vector.items())
    assert set(vectors.vector(0)) == {"gpu", "xid", "ib"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("account_only", "kept", "shared"),
    [(False, 200, True), (True, 100, False), (False, 7, True), (False, 200, False)],
)
def test_the_vectors_of_every_case_equal_the_per_text_formula_bit_for_bit(account_only, kept, shared):
    published = profiles.published()
    texts = [Counter(p.counts) + Counter({} if account_only else p.context) for p in published]
    idf, expected = per_text(texts, kept, shared)
    vectors = word_vectors(
        [(p.counts,) if account_only else (p.counts, p.context) for p in published], kept, shared=shared
    )
    assert len(published) > 100
    assert dict(zip(vectors.words, vectors.idf.tolist(), strict=True)) == idf
    for row, (profile, vector) in enumerate(zip(published, expected, strict=True)):
        got = vectors.vector(row)
        assert list(got.items()) == list(vector.items()), profile.id  # same words, order, bits
    assert max(len(v) for v in expected) == kept  # the cut happened
    matrix = vectors.matrix()
    assert matrix.shape == (len(published), len(vectors.words))
    assert matrix[3, vectors.column_of[next(iter(expected[3]))]] == next(iter(expected[3].values()))
