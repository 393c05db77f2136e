"""The site's general 404 says how case ids look ("Case ids look like IL-0428.") only under
/cases/, where a case id was expected: it said so of every address (`/nope`, a feed, a
mistyped page), answering a question nobody had asked (a new user's walkthrough)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

HINT = "Case ids look like <code>IL-0428</code>."


@pytest.mark.parametrize("path", ["/nope", "/feeds/nope.atom", "/topic/interconnect", "/refs/x/y"])
def test_an_address_expecting_no_case_id_is_a_404_without_the_hint(client, path):
    response = client.get(path)
    assert response.status_code == 404
    html = response.content.decode()
    assert f"Nothing lives at <code>{path}</code>." in html
    assert HINT not in html


@pytest.mark.parametrize("path", ["/cases/IL-0428/nope", "/cases/IL-9999/history"])
def test_an_address_under_cases_keeps_the_hint(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert f"Nothing lives at <code>{path}</code>. {HINT}" in response.content.decode()
