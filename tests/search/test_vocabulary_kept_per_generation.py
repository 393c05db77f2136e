"""With the store cache on, search keeps the vocabulary it plans with (terms, lexicon,
correctable words) in the process per store generation: the same as read afresh, and read
again after a write."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.planning import _read_vocabulary, vocabulary
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def _results(query: str):
    found = search_cases(query=query, limit=10)
    return (
        [(h.case.id, h.score, h.confidence, h.matched_terms) for h in found.hits + found.partial_hits],
        found.total,
        found.suggestion,
        found.terms,
    )


def test_the_kept_vocabulary_is_read_afresh_after_a_write(store_cache_on, import_synthetic, settings):
    kept = vocabulary()
    assert vocabulary() is kept
    assert kept == _read_vocabulary()
    before = _results("nccl timout hang")
    # An import changes the term counts (so the terms' weights): the kept one is replaced.
    import_synthetic(*[synthetic_case(n) for n in range(5)])
    fresh = vocabulary()
    assert fresh is not kept and fresh == _read_vocabulary() and fresh != kept
    settings.STORE_CACHE = False
    uncached = _results("nccl timout hang")
    settings.STORE_CACHE = True
    assert _results("nccl timout hang") == uncached
    assert before[2] == uncached[2] == "nccl timeout hang"
