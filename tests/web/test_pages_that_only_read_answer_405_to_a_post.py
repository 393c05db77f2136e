"""A page that only shows the library (every page under `conditional_page`, and a
proposal's status) answers another method than GET or HEAD with the site's 405 page and
`Allow: GET, HEAD`, not with Django's bare CSRF 403; the forms that write keep their check."""

from __future__ import annotations

import pytest
from django.test import Client

from .html import element, text_of

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/cases/",
    "/cases/IL-0428",
    "/cases/IL-0428/history",
    "/affected/",
    "/topics/",
    "/topics/interconnect",
    "/vocab/",
    "/vocab/symptom/nccl-timeout",
    "/codes/",
    "/codes/xid-79",
    "/refs/",
    "/stats",
    "/feeds/cases.atom",
]


@pytest.fixture
def browser():
    """A client that checks CSRF tokens, as the site does for a real browser."""
    return Client(enforce_csrf_checks=True)


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_another_method_than_get_is_a_405_page_with_allow(browser, path, method):
    response = getattr(browser, method)(path)
    assert response.status_code == 405
    assert response["Allow"] == "GET, HEAD"
    assert response["Content-Type"] == "text/html; charset=utf-8"
    html = response.content.decode()
    assert text_of(element(html, "h1")) == "Method not allowed"
    assert f"it answers GET, HEAD, not {method.upper()}." in html
    assert not response.has_header("ETag")


def test_a_proposal_status_page_only_reads(browser):
    response = browser.post("/proposals/no-such-token")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"


def test_get_and_head_still_answer(browser):
    assert browser.get("/cases/").status_code == 200
    assert browser.head("/affected/").status_code == 200


def test_the_proposal_form_keeps_its_csrf_check(browser):
    assert browser.post("/propose/", {"title": "x"}).status_code == 403
