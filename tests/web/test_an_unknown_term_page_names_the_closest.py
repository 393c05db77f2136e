"""`/vocab/<facet>/<unknown>` and `/codes/<unknown>` answer as their feeds do: a 404 saying
what the API and MCP say of the slug (`No symptom called “trainig-hang”. Did you mean
Training hang, ...?`) with the closest terms of the facet first, each a link to its page.
They gave the site's general "Nothing lives at <path>" (a new user's walkthrough), while
the feeds (`/feeds/symptoms/<unknown>.atom`) already named the closest terms."""

from __future__ import annotations

import re
from html import unescape

import pytest

pytestmark = pytest.mark.django_db


def notice_of(response) -> str:
    [notice] = re.findall(r'<p class="notice">(.*?)</p>', response.content.decode())
    return unescape(notice)


def suggested(response) -> list[tuple[str, str]]:
    """(href, name) of each term the 404 page suggests, in order."""
    [listed] = re.findall(r'<ul class="suggestions">(.*?)</ul>', response.content.decode(), re.S)
    return [(href, unescape(name)) for href, name in re.findall(r'<a href="([^"]+)">([^<]+)</a>', listed)]


@pytest.mark.parametrize(
    ("page", "feed", "said", "closest"),
    [
        (
            "/vocab/symptom/trainig-hang",
            "/feeds/symptoms/trainig-hang.atom",
            "No symptom called “trainig-hang”. Did you mean Training hang?",
            [("/vocab/symptom/training-hang", "Training hang")],
        ),
        (
            "/codes/xid-97",
            "/feeds/codes/xid-97.atom",
            "No error code called “xid-97”. Did you mean Xid 79, Xid 94 or Xid 95?",
            [
                ("/codes/xid-79", "Xid 79"),
                ("/codes/xid-94", "Xid 94"),
                ("/codes/xid-95", "Xid 95"),
            ],
        ),
    ],
)
def test_an_unknown_symptom_or_code_page_says_what_its_feed_says(client, page, feed, said, closest):
    response = client.get(page)
    assert response.status_code == 404
    assert notice_of(response) == notice_of(client.get(feed)) == said
    assert suggested(response)[: len(closest)] == closest
    assert "Nothing lives at" not in response.content.decode()


def test_the_page_and_the_api_word_an_unknown_code_alike(client):
    [problem] = client.get("/api/cases/", {"error_code": "xid-97"}).json()["errors"]
    assert problem["suggestions"] == ["xid-79", "xid-94", "xid-95"]
    assert notice_of(client.get("/codes/xid-97")).startswith(
        "No error code called “xid-97”. Did you mean Xid 79"
    )


@pytest.mark.parametrize(
    ("page", "said", "first"),
    [
        (
            "/vocab/workload/trainng",
            "No workload called “trainng”. Did you mean Training?",
            "/vocab/workload/training",
        ),
        (
            "/vocab/root-cause/hardware-falt",
            "No root cause called “hardware-falt”. Did you mean Hardware fault?",
            "/vocab/root-cause/hardware-fault",
        ),
    ],
)
def test_every_facet_s_page_names_its_own_closest_terms_first(client, page, said, first):
    response = client.get(page)
    assert (response.status_code, notice_of(response)) == (404, said)
    assert suggested(response)[0][0] == first


@pytest.mark.parametrize(
    ("asked", "canonical"),
    [("/codes/Xid%2079", "/codes/xid-79"), ("/vocab/Symptom/Training-Hang", "/vocab/symptom/training-hang")],
)
def test_a_known_term_named_otherwise_still_redirects(client, asked, canonical):
    response = client.get(asked)
    assert (response.status_code, response["Location"]) == (301, canonical)
