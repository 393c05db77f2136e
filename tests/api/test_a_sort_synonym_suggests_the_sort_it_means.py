"""An unknown `sort` is suggested the sort it means: `best` is relevance, `latest` newest. The
suggestion was the nearest spelling (difflib), and `best` is spelt nearer `oldest` (they share
`est`) than anything else, so `sort=best` was told "did you mean oldest?"."""

from __future__ import annotations

import pytest

from tests.web.html import element, links, text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("given", "meant"),
    [
        ("best", "relevance"),
        ("best_match", "relevance"),
        ("Best-Match", "relevance"),
        ("relevant", "relevance"),
        ("latest", "newest"),
        ("recent", "newest"),
        ("earliest", "oldest"),
        # Typos still go to the sort spelt alike, of a sort or of a synonym.
        ("newst", "newest"),
        ("oldst", "oldest"),
        ("relevence", "relevance"),
        ("lastest", "newest"),
    ],
)
def test_the_api_suggests_the_sort_meant(client, given, meant):
    response = client.get("/api/cases/", {"q": "hang", "sort": given})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameter": "sort",
            "detail": "must be one of relevance, newest, oldest",
            "value": given,
            "suggestions": [meant],
        }
    ]


def test_a_word_that_means_no_sort_gets_no_suggestion(client):
    (error,) = client.get("/api/cases/", {"sort": "xyz"}).json()["errors"]
    assert "suggestions" not in error


def test_the_page_offers_best_match_for_best(client):
    html = client.get("/cases/", {"q": "hang", "sort": "best"}).content.decode()
    notice = element(html, "div", class_="note notice")
    assert "Sort: must be one of relevance, newest, oldest (given “best”)." in text_of(notice)
    assert links(notice) == [("/cases/?q=hang&sort=relevance", "relevance")]


@pytest.mark.parametrize(
    ("given", "meant"),
    [("newest", "-published"), ("latest", "-published"), ("oldest", "published"), ("best", "relevance")],
)
def test_ordering_lists_its_values_and_suggests_its_own_spelling(client, given, meant):
    # `ordering` is `sort`'s former name with its former values only; a walkthrough sent
    # `ordering=newest` and got the list of ordering values with no hint of what it meant.
    response = client.get("/api/cases/", {"ordering": given})
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "parameter": "ordering",
            "detail": (
                "must be one of relevance, -published, published (sort takes relevance, newest, oldest)"
            ),
            "value": given,
            "suggestions": [meant],
        }
    ]


def test_ordering_in_its_own_spelling_still_sorts(client):
    newest = client.get("/api/cases/", {"ordering": "-published", "fields": "published"}).json()
    assert (
        newest["results"]
        == client.get("/api/cases/", {"sort": "newest", "fields": "published"}).json()["results"]
    )
    oldest = client.get("/api/cases/", {"ordering": "published", "fields": "published"}).json()["results"]
    assert [hit["published"] for hit in oldest] == sorted(hit["published"] for hit in oldest)
