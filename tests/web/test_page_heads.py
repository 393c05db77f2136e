"""Every page: its own title and meta description, its JSON twin, landmarks, the stylesheet."""

from __future__ import annotations

import re

import pytest
from rest_framework.test import APIClient

from tests.factories import NEW_PROPOSAL

from .html import meta_description, title_of

pytestmark = pytest.mark.django_db

# page -> its JSON twin.
TWINS = {
    "/": "/api/cases/",
    "/cases/": "/api/cases/",
    "/cases/?symptom=nccl-timeout": "/api/cases/?symptom=nccl-timeout",
    "/cases/?topic=interconnect&sort=oldest&page=2": "/api/cases/?topic=interconnect&sort=oldest&page=2",
    "/cases/IL-0428": "/api/cases/IL-0428",
    "/topics/": "/api/topics/",
    "/topics/interconnect": "/api/topics/interconnect",
    "/vocab/": "/api/vocab/",
    "/vocab/symptom/nccl-timeout": "/api/vocab/symptom",
    "/stats": "/api/stats",
}


@pytest.mark.parametrize(("url", "twin"), TWINS.items())
def test_every_page_links_its_json_twin(client, url, twin):
    response = client.get(url)
    assert response.status_code == 200
    assert response["Link"] == f'<{twin}>; rel="alternate"; type="application/json"'
    html = response.content.decode()
    escaped = twin.replace("&", "&amp;")
    assert f'<link rel="alternate" type="application/json" href="{escaped}">' in html
    assert f'<a href="{escaped}" rel="alternate" type="application/json">This page as JSON</a>' in html
    assert client.get(twin).status_code == 200


# form page -> the endpoint taking the same form as a JSON body (POST only).
FORM_TWINS = {
    "/match/": "/api/match",
    "/affected/": "/api/affected",
    "/affected/?versions=NCCL%202.19.3": "/api/affected",
    "/propose/": "/api/proposals/",
}


@pytest.mark.parametrize(("url", "twin"), FORM_TWINS.items())
def test_a_form_page_names_the_endpoint_taking_its_form_as_json(client, url, twin):
    """`/match/`, `/affected/` and `/propose/` sent no `Link` header, though each has a JSON
    twin: the endpoint that takes the same form as a JSON body. The header says it is
    POSTed; the footer names the method instead of a link a browser would GET (a 405)."""
    response = client.get(url)
    assert response.status_code == 200
    assert response["Link"] == f'<{twin}>; rel="alternate"; type="application/json"; title="POST a JSON body"'
    html = response.content.decode()
    assert f'<link rel="alternate" type="application/json" href="{twin}">' in html
    assert f"<li>This form as JSON: <code>POST {twin}</code></li>" in html
    assert "This page as JSON" not in html
    assert client.get(twin)["Allow"].startswith("POST")


def test_the_match_page_names_its_twin_after_a_match_too(client):
    response = client.post("/match/", {"log": "NCCL WARN Watchdog caught collective operation timeout"})
    assert response.status_code == 200
    assert (
        response["Link"] == '</api/match>; rel="alternate"; type="application/json"; title="POST a JSON body"'
    )


def test_a_proposal_status_page_links_its_json_twin(client):
    """The private status page's twin is `GET /api/proposals/<token>`, as private (the same
    token), and answered as the page is."""
    body = (
        APIClient()
        .post(
            "/api/proposals/", {**NEW_PROPOSAL, "source_urls": [NEW_PROPOSAL["source_urls"]]}, format="json"
        )
        .json()
    )
    page_url = body["status_url"].removeprefix("http://testserver")
    twin = body["url"].removeprefix("http://testserver")
    response = client.get(page_url)
    assert response["Link"] == f'<{twin}>; rel="alternate"; type="application/json"'
    assert f'<a href="{twin}" rel="alternate" type="application/json">This page as JSON</a>' in (
        response.content.decode()
    )
    assert client.get(twin).json()["status"] == "received"


def test_the_search_pages_twin_asks_the_api_for_the_same_cases(client):
    url = "/cases/?q=nccl&topic=interconnect&exclude_component=deepspeed&sort=oldest&page=1"
    twin = client.get(url)["Link"][1:].split(">")[0]
    assert twin == "/api/cases/?q=nccl&topic=interconnect&exclude_component=deepspeed&sort=oldest"
    html = client.get(url).content.decode()
    api = client.get(twin).json()
    assert [r["id"] for r in api["results"]] == re.findall(
        r'<span class="case-id">(IL-\d+)</span>', html.split('class="results"')[1]
    )


def test_titles_and_descriptions_differ_from_page_to_page(client):
    pages = [*TWINS, "/match/", "/vocab/component/nccl"]
    heads = {url: client.get(url).content.decode() for url in pages}
    titles = {url: title_of(html) for url, html in heads.items()}
    descriptions = {url: meta_description(html) for url, html in heads.items()}
    assert len(set(titles.values())) == len(pages), titles
    assert len(set(descriptions.values())) == len(pages), descriptions
    assert titles["/cases/IL-0428"].startswith("IL-0428: Test runs of 100B-200B models")
    assert titles["/cases/?symptom=nccl-timeout"] == "Cases (NCCL timeout) · incidentlib"
    assert all(40 <= len(d) for d in descriptions.values()), descriptions


@pytest.mark.parametrize("url", ["/", "/cases/", "/cases/IL-0428", "/stats", "/match/"])
def test_pages_have_a_skip_link_main_landmark_and_labelled_navigation(client, url):
    html = client.get(url).content.decode()
    assert '<a class="skip" href="#main">Skip to content</a>' in html
    assert '<main id="main"' in html and '<nav aria-label="Main">' in html
    assert '<html lang="en">' in html
    assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html


def test_the_current_section_is_marked_in_the_navigation(client):
    html = client.get("/stats").content.decode()
    assert '<a href="/stats" aria-current="page">Stats</a>' in html
