"""A page number past any integer a database holds (2^63 - 1, 2^63) is the last page on the
site and a 400 naming `page` in the API, never an overflow (issue 12, the page row)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

HUGE = ["9223372036854775807", "9223372036854775808", "99999999999999999999999"]


@pytest.mark.parametrize("page", HUGE)
@pytest.mark.parametrize("query", ["q=nccl&", "", "q=nccl&topic=training&"])
def test_the_site_sends_a_huge_page_to_the_last_page(client, query, page):
    response = client.get(f"/cases/?{query}page={page}")
    assert response.status_code == 302
    last = client.get(response["Location"])
    assert last.status_code == 200
    assert b"Traceback" not in last.content


@pytest.mark.parametrize("page", HUGE)
def test_the_api_refuses_a_huge_page_naming_it(client, page):
    response = client.get(f"/api/cases/?q=nccl&page={page}")
    assert response.status_code == 400
    problem = response.json()
    assert response["Content-Type"] == "application/problem+json"
    assert problem["errors"][0]["parameter"] == "page"
    assert problem["detail"] == "page: must be between 1 and 100000"
