"""A stored list that a new case enters is merged from scores of one time: its kept
neighbours are scored again with the rarities and hubness of the library the new case joins
(`similarity.update_neighbours`), not left at those of the day each pair was scored, on
both paths (every published profile, and the candidates of a library past
`settings.WORD_STATISTICS_FROM`). A list no changed case enters keeps its rows
(`test_similar_cases.test_incremental_update_leaves_unrelated_lists_alone`)."""

from __future__ import annotations

import pytest

from incidents.search import profiles
from incidents.search.models import CaseNeighbour
from incidents.search.similarity import _Corpus
from tests.search.test_increment_from_candidates import a_new_case_like, import_documents

pytestmark = pytest.mark.django_db


def scores_of(case_id: str) -> dict[str, float]:
    return dict(CaseNeighbour.objects.filter(case_id=case_id).values_list("neighbour_id", "score"))


@pytest.mark.parametrize("partial", [False, True], ids=["every profile", "candidates"])
def test_the_neighbours_kept_beside_a_new_case_are_scored_as_it_is(partial, settings, tmp_path):
    settings.WORD_STATISTICS_FROM = 0 if partial else 10**9
    before = scores_of("IL-0463")
    import_documents(tmp_path, a_new_case_like("IL-0463", "IL-9803"))
    after = scores_of("IL-0463")
    assert "IL-9803" in after  # its own story retold enters its list
    corpus = _Corpus(profiles.published())
    owner = corpus.profiles["IL-0463"]
    today = {other: round(corpus.compare(owner, corpus.profiles[other])[0], 4) for other in after}
    assert after == today
    kept = set(before) & set(after)
    assert len(kept) == len(after) - 1
    # One more case moved the rarities: scored when the fixtures were imported, a kept
    # neighbour would stand where a rebuild no longer puts it.
    assert any(before[other] != after[other] for other in kept)
