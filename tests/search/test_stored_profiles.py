"""Similar cases read stored per-case profiles (`profiles.py`) instead of every case's text
and passage vectors: what they read must be what the text gives."""

from __future__ import annotations

import numpy as np
import pytest

from incidents.models import Case
from incidents.search import profiles
from incidents.search.models import CaseNeighbour, CaseProfile
from incidents.search.similarity import (
    NEIGHBOUR_COLUMNS,
    _Corpus,
    _rows_for,
    _with_hubness_of_every_case,
    update_neighbours,
)

pytestmark = pytest.mark.django_db


def from_text() -> list[profiles.Profile]:
    """Every published case's profile with nothing stored (computed from its text)."""
    CaseProfile.objects.all().delete()
    return profiles.published()


def test_stored_profiles_equal_the_profiles_of_the_text():
    stored = profiles.published()
    assert CaseProfile.objects.count() == Case.objects.count()  # import stored one per case
    computed = from_text()
    assert [p.id for p in stored] == [p.id for p in computed]
    for a, b in zip(stored, computed, strict=True):
        assert (a.terms, dict(a.counts), dict(a.context), a.surface) == (
            b.terms,
            dict(b.counts),
            dict(b.context),
            b.surface,
        ), a.id
        assert a.context, a.id  # every fixture case says more than its account
        assert a.embedding is not None and b.embedding is not None, a.id
        assert np.array_equal(a.embedding, b.embedding), a.id
    assert sum(len(p.counts) for p in stored) > 20 * len(stored)  # real word counts, not empty


def test_stored_neighbours_equal_every_pair_scored_from_the_text():
    stored = sorted(CaseNeighbour.objects.values_list(*NEIGHBOUR_COLUMNS))
    # The hubness is computed again too, from the embeddings (`hubness.every_case`).
    corpus = _with_hubness_of_every_case(_Corpus(from_text()))
    exact = sorted(
        row for owner, ranked in corpus.best_all().items() for row in _rows_for(corpus, owner, ranked)
    )
    assert len(stored) >= 9 * Case.objects.published().count()
    assert [tuple(r) for r in stored] == [tuple(r) for r in exact]


def test_a_case_without_a_stored_profile_is_read_from_its_text_and_stored_at_its_next_change():
    CaseProfile.objects.filter(case_id="IL-0463").delete()
    [profile] = [p for p in profiles.published() if p.id == "IL-0463"]
    assert profile.counts["nccl"] > 0
    update_neighbours(["IL-0463"])
    assert CaseProfile.objects.filter(case_id="IL-0463").exists()
