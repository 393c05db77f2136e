"""Duplicate checks (`similarity.TextIndex`) pick candidates by one sparse product and score
only those near the best: the lists must be those of scoring every published case."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import profiles
from incidents.search.similarity import TextIndex, _Corpus

pytestmark = pytest.mark.django_db


def every_case_scored(index: TextIndex, text: str, skip: set[str], min_score: float, limit: int):
    probe = index._probe(text)
    scored = []
    for row, case_id in enumerate(index.ids):
        vector = index.vector(row)
        score = min(sum(probe[w] * vector[w] for w in probe.keys() & vector.keys()), 1.0)
        if case_id not in skip and score >= min_score and score > 0:
            scored.append((case_id, round(score, 4)))
    scored.sort(key=lambda s: (-s[1], s[0]))
    return scored[:limit]


def texts() -> list[str]:
    cases = Case.objects.published().order_by("id")[:12]
    accounts = [f"{c.title}\n{c.summary}" for c in cases]
    return [*accounts, "nccl watchdog timeout", "GPU fell off the bus xid 79", "checkpoint write slow"]


@pytest.mark.parametrize(("min_score", "limit"), [(0.0, 5), (0.0, 1), (0.2, 3), (0.6, 5)])
def test_the_lists_equal_every_case_scored_one_pair_at_a_time(min_score, limit):
    index = TextIndex()
    skips = [set(), {"IL-0428"}, {"IL-0463", "IL-0464"}]
    many = index.matches_many(
        texts(), excludes=[skips[i % 3] for i in range(len(texts()))], min_score=min_score, limit=limit
    )
    for i, (text, found) in enumerate(zip(texts(), many, strict=True)):
        expected = every_case_scored(index, text, skips[i % 3], min_score, limit)
        assert found == expected, text
        assert index.matches(text, exclude=skips[i % 3], min_score=min_score, limit=limit) == expected
    if min_score == 0.0:
        # Short probes share words with many cases: the candidates were cut to the best.
        assert all(len(found) == limit for found in many)


def test_a_case_account_finds_its_own_case_first():
    index = TextIndex()
    case = Case.objects.published().order_by("id").first()
    [(best, score), *_] = index.matches(f"{case.title}\n{case.summary}")
    assert best == case.id and score > 0.6


def test_the_index_keeps_the_account_vectors_and_nothing_else():
    published = profiles.published(account_only=True)
    corpus = _Corpus(published, account_only=True)
    index = TextIndex(published)
    assert index.ids == [p.id for p in published]
    # The same words and weights, bit for bit, as the corpus it was built from gives.
    for row, profile in enumerate(published):
        assert index.vector(row) == corpus.vector(profile)
    # The profiles (every case's word counts: 121 MiB at 20,000 cases) are not kept.
    held = [
        item
        for value in vars(index).values()
        if isinstance(value, (list, dict))
        for item in (value.values() if isinstance(value, dict) else value)
    ]
    assert held and not any(isinstance(item, profiles.Profile) for item in held)
