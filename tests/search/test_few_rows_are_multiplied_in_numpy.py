"""A block of a few rows (an increment's changed cases, a duplicate check's new texts) is
multiplied in numpy (`row_products.py`), a larger one with scipy.sparse: both give the
same scores to float rounding, far inside `pair_scores.MARGIN`, and so the same neighbours
and the same duplicate matches."""

from __future__ import annotations

import numpy as np
import pytest

from incidents.search import profiles, row_products
from incidents.search.pair_scores import MARGIN
from incidents.search.row_products import SparseRows, products
from incidents.search.similarity import TextIndex, _Corpus
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def with_scipy(monkeypatch) -> None:
    """Every product past the numpy budget from here on: the scipy path."""
    monkeypatch.setattr(row_products, "CELLS", -1)


def rows(dense: list[list[float]]) -> SparseRows:
    starts, columns, values = [0], [], []
    for row in dense:
        held = [(c, v) for c, v in enumerate(row) if v]
        columns += [c for c, _ in held]
        values += [v for _, v in held]
        starts.append(len(columns))
    return SparseRows(np.array(starts), np.array(columns), np.array(values, dtype=float), len(dense[0]))


def test_products_are_the_dot_products_of_each_pair_of_rows():
    stored = rows([[1, 0, 2], [0, 3, 0], [0, 0, 0], [4, 5, 6]])
    block = rows([[1, 1, 0], [0, 0, 1], [0, 0, 0]])
    assert products(stored, block).tolist() == [[1, 3, 0, 9], [2, 0, 0, 6], [0, 0, 0, 0]]
    assert products(stored, stored.take([3, 1])).tolist() == [[16, 15, 0, 77], [0, 9, 0, 15]]


def test_past_the_budget_the_caller_is_told_to_use_scipy(monkeypatch):
    stored = rows([[1, 0, 2], [0, 3, 0]])
    monkeypatch.setattr(row_products, "CELLS", 3)  # 2 block rows x 2 entries hit: 4 cells
    assert products(stored, rows([[1, 0, 0], [0, 0, 1]])) is None
    assert products(stored, rows([[1, 0, 0]])).tolist() == [[1, 0]]


def test_a_few_cases_score_as_scipy_scores_them(monkeypatch):
    corpus = _Corpus(profiles.published())
    pairs = corpus.pairs
    some = [0, 7, 40, len(pairs.ids) - 1]
    assert products(pairs.vectors, pairs.vectors.take(some)) is not None  # numpy takes this block
    by_numpy = pairs.rows(some)
    lists_by_numpy = [corpus.best(p) for p in corpus.ordered]
    with_scipy(monkeypatch)
    by_scipy = pairs.rows(some)
    assert np.array_equal(np.isinf(by_numpy), np.isinf(by_scipy))
    finite = ~np.isinf(by_scipy)
    assert np.abs(by_numpy[finite] - by_scipy[finite]).max() < MARGIN / 10
    assert (by_scipy[finite] > 0.2).sum() > 10  # real scores, not a table of zeros
    assert [corpus.best(p) for p in corpus.ordered] == lists_by_numpy


def test_duplicate_matches_are_those_scipy_finds(monkeypatch):
    texts = []
    for case_id in ("IL-0489", "IL-0463", "IL-0428"):
        document = load_fixture(case_id)
        texts.append("\n".join([document["title"], document["summary"], document["symptoms"]["description"]]))
    index = TextIndex()
    excludes: list[set[str]] = [set(), {"IL-0463"}, set()]
    by_numpy = index.matches_many(texts, excludes=excludes, min_score=0.2, limit=5)
    with_scipy(monkeypatch)
    assert index.matches_many(texts, excludes=excludes, min_score=0.2, limit=5) == by_numpy
    assert by_numpy[0][0][0] == "IL-0489" and by_numpy[2][0][0] == "IL-0428"
    assert "IL-0463" not in [case_id for case_id, _ in by_numpy[1]]
