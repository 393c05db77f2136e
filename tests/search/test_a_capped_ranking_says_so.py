"""When more cases contain a query's words than the lexical ranking reads, every front door
is told that the total counts the matches among those ranked, not every case."""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.search import ranking, search_cases

pytestmark = pytest.mark.django_db

CAPPED = "Only the 5 cases that best match these words were ranked"


def test_a_query_found_in_more_cases_than_are_ranked_says_so(monkeypatch, client):
    containing = search_cases(query="nccl", limit=100)
    assert containing.total + len(containing.partial_hits) > 5
    assert not any(note.startswith("Only the") for note in containing.notes)

    monkeypatch.setattr(ranking, "LEXICAL_DEPTH", 5)
    capped = search_cases(query="nccl", limit=100)
    assert any(note.startswith(CAPPED) for note in capped.notes)
    body = client.get("/api/cases/", {"q": "nccl"}).json()
    assert any(note.startswith(CAPPED) for note in body["notes"])


def test_a_query_found_in_exactly_as_many_cases_as_are_ranked_is_not_capped(monkeypatch):
    from incidents.search.backends import get_backend
    from incidents.search.planning import interpret

    rows = ranking.lexical_rows(get_backend(), interpret("xid"), Case.objects.published(), whole=True)
    assert rows
    monkeypatch.setattr(ranking, "LEXICAL_DEPTH", len(rows))
    assert not any(note.startswith("Only the") for note in search_cases(query="xid").notes)
    monkeypatch.setattr(ranking, "LEXICAL_DEPTH", len(rows) - 1)
    assert any(note.startswith("Only the") for note in search_cases(query="xid").notes)
