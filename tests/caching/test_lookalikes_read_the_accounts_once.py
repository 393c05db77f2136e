"""The duplicate check of a proposal being typed (`/api/proposals/lookalikes`) reads every
published account once per store generation in a process, not once per request (2 s a
request at 20,000 synthetic cases), and a case written since is compared at once."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents.search import similarity
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

pytestmark = pytest.mark.django_db

ACCOUNT = "Zorvath collective stalls when the quillmark fabric reroutes around a blenwick switch"


def lookalikes(client, text: str) -> list[str]:
    response = client.get(reverse("api:proposal-lookalikes"), {"title": text, "text": text})
    assert response.status_code == 200
    return [found["id"] for found in response.json()["duplicates"]]


def test_the_accounts_are_read_once_per_generation(client, store_cache_on, django_assert_num_queries):
    assert lookalikes(client, ACCOUNT) == []
    # The URL-less check needs no query of its own now; the title search runs as always.
    first = similarity.current_text_index()
    with django_assert_num_queries(0):
        assert similarity.current_text_index() is first
        assert first.matches(ACCOUNT, min_score=0.6) == []


def test_a_case_written_since_is_found_at_once(client, store_cache_on, tmp_path):
    assert lookalikes(client, ACCOUNT) == []
    before = similarity.current_text_index()
    import_case_files(paths=write_cases(tmp_path, [synthetic_case(7, title=ACCOUNT, summary=ACCOUNT)]))

    assert lookalikes(client, ACCOUNT) == ["IL-900007"]
    assert similarity.current_text_index() is not before
