"""Every kind of bad input answers 400 with a problem document naming the parameter."""

from __future__ import annotations

import pytest

from .conftest import assert_matches_schema

pytestmark = pytest.mark.django_db


def problem(client, url: str, status: int = 400) -> dict:
    response = client.get(url)
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response["Cache-Control"] == "no-store"
    assert not response.has_header("ETag")
    return response.json()


def test_it_rejects_an_unknown_query_parameter(client):
    body = problem(client, "/api/cases/?symptoms=nccl-timeout")
    assert body["type"] == "about:blank"
    assert (body["title"], body["status"], body["instance"]) == ("Bad Request", 400, "/api/cases/")
    [error] = body["errors"]
    assert error["parameter"] == "symptoms"
    assert error["detail"].startswith("unknown parameter; this endpoint accepts q, topic, symptom")
    assert error["suggestions"] == ["symptom"]


@pytest.mark.parametrize(("given", "meant"), [("qq", "q"), ("topc", "topic"), ("sotr", "sort")])
def test_a_misspelt_query_parameter_suggests_the_one_meant(client, given, meant):
    # As a misspelt JSON body key (`logs` -> `log`) and the page's notice do; the query string
    # named none (a new user's walkthrough: `?qq=nccl`).
    [error] = problem(client, f"/api/cases/?{given}=nccl")["errors"]
    assert (error["parameter"], error["suggestions"]) == (given, [meant])
    page = client.get(f"/cases/?{given}=nccl").content.decode()
    assert f"Did you mean {meant}?" in page


@pytest.mark.parametrize(
    ("given", "meant"), [("query", "q"), ("search", "q"), ("per_page", "page_size"), ("limit", "page_size")]
)
def test_a_parameter_known_by_another_name_suggests_this_endpoints_name(client, given, meant):
    # Spelling finds no `q` in `query` and `year` in `search` (`spelling.NAMES_MEANT`).
    [error] = problem(client, f"/api/cases/?{given}=10")["errors"]
    assert (error["parameter"], error["suggestions"]) == (given, [meant])


def test_the_page_suggests_the_parameter_a_common_name_stands_for(client):
    page = client.get("/cases/?query=nccl").content.decode()
    assert "Did you mean q?" in page


@pytest.mark.parametrize(
    "url",
    [
        "/api/cases/IL-0428?expand=1",
        "/api/stats?x=1",
        "/api/vocab/?facet=topic",
        "/api/topics/?page=2",
        "/api/export?format=json",
        "/api/cases/IL-0428/similar?page=1",
    ],
)
def test_strict_endpoints_reject_parameters_they_do_not_take(client, url):
    name = url.split("?")[1].split("=")[0]
    assert [e["parameter"] for e in problem(client, url)["errors"]] == [name]


def test_it_rejects_an_unknown_symptom_and_suggests_the_closest(client):
    response = client.get("/api/cases/?symptom=nccl-timout")
    assert_matches_schema(response, "/api/cases/")
    [error] = response.json()["errors"]
    assert error["parameter"] == "symptom"
    assert error["value"] == "nccl-timout"
    assert error["detail"] == "unknown symptom 'nccl-timout'"
    assert error["suggestions"][0] == "nccl-timeout"


def test_a_misspelt_term_name_suggests_the_slug(client):
    # A term's name is accepted like its slug (issue 9); a misspelt one is refused with the slug.
    [error] = problem(client, "/api/cases/?exclude_symptom=NCCL+timout")["errors"]
    assert (error["parameter"], error["suggestions"][0]) == ("exclude_symptom", "nccl-timeout")


def test_a_term_name_or_synonym_selects_what_its_slug_selects(client):
    def ids(query: str) -> list[str]:
        response = client.get(f"/api/cases/?page_size=100&{query}")
        assert response.status_code == 200, response.content
        return [hit["id"] for hit in response.json()["results"]]

    by_slug = ids("exclude_symptom=nccl-timeout")
    assert by_slug and ids("exclude_symptom=NCCL+timeout") == by_slug
    assert ids("symptom=NCCL+Timeout") == ids("symptom=nccl-timeout") != []


def test_a_misspelt_organization_suggests_the_stored_spelling(client):
    # Letter case does not matter (`bigscience` is BigScience); a misspelling is refused with
    # the nearest organization's slug, the value to send (organizations are terms).
    [error] = problem(client, "/api/cases/?organization=bigscence")["errors"]
    assert error == {
        "parameter": "organization",
        "detail": "unknown organization 'bigscence'",
        "value": "bigscence",
        "suggestions": ["bigscience"],
    }
    assert (
        client.get("/api/cases/?organization=bigscience").json()["count"]
        == (client.get("/api/cases/?organization=BigScience").json()["count"])
    )


def test_every_bad_parameter_is_named_at_once(client):
    body = problem(
        client,
        "/api/cases/?topic=nope&year=20x4&published_after=2024-13-01"
        "&ordering=title&page_size=500&page=0&fields=title,body",
    )
    named = [(e["parameter"], e.get("value")) for e in body["errors"]]
    assert named == [
        ("topic", "nope"),
        ("year", "20x4"),
        ("published_after", "2024-13-01"),
        ("ordering", "title"),
        ("page", "0"),
        ("page_size", "500"),
        ("fields", "body"),
    ]
    details = {e["parameter"]: e["detail"] for e in body["errors"]}
    assert details["page_size"] == "must be between 1 and 100"
    assert details["published_after"] == "must be a date as YYYY-MM-DD"
    assert details["ordering"] == (
        "must be one of relevance, -published, published (sort takes relevance, newest, oldest)"
    )
    assert body["detail"].startswith("topic: unknown topic 'nope'; year: must be a year")


def test_a_range_that_ends_before_it_starts_is_refused(client):
    [error] = problem(client, "/api/cases/?published_after=2024-01-01&published_before=2023-01-01")["errors"]
    assert error["parameter"] == "published_before"


def test_a_parameter_given_twice_is_refused(client):
    [error] = problem(client, "/api/cases/?page=1&page=2")["errors"]
    assert error == {"parameter": "page", "detail": "given more than once; give it once"}


def test_a_page_past_the_last_is_a_404(client):
    body = problem(client, "/api/cases/?page=99", 404)
    assert body["detail"].startswith("Page 99 is past the last page (")


@pytest.mark.parametrize(
    "url, detail",
    [
        ("/api/cases/IL-9999", "No case with id 'IL-9999'."),
        ("/api/cases/not-an-id", "No case with id 'not-an-id': ids look like IL-0428."),
        ("/api/cases/IL-9999/similar", "No case with id 'IL-9999'."),
        ("/api/topics/interconect", "No topic called “interconect”. Did you mean Interconnect faults?"),
        (
            "/api/vocab/colour",
            "No facet 'colour'; facets: topic, symptom, root_cause, component, workload, organization, "
            "accelerator (error codes: /api/codes/).",
        ),
        ("/api/nothing-here", "No resource at /api/nothing-here"),
    ],
)
def test_unknown_resources_are_404_problems(client, url, detail):
    body = problem(client, url, 404)
    assert (body["title"], body["detail"], body["instance"]) == ("Not Found", detail, url.split("?")[0])


@pytest.mark.parametrize(
    "method, url",
    [
        ("put", "/api/cases/"),  # POST creates a case (editors); PUT has no meaning here
        ("delete", "/api/cases/IL-0428"),
        ("put", "/api/stats"),
        ("get", "/api/match"),
        ("patch", "/api/export"),
    ],
)
def test_a_wrong_method_is_a_405_problem_with_allow(client, method, url):
    response = getattr(client, method)(url)
    assert response.status_code == 405
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert (body["title"], body["status"]) == ("Method Not Allowed", 405)
    assert body["detail"] == f'Method "{method.upper()}" not allowed.'
    allowed = {m.strip() for m in response["Allow"].split(",")}
    assert allowed >= ({"POST"} if url == "/api/match" else {"GET"})


def test_a_crash_is_a_500_problem(client, monkeypatch):
    from incidents import selectors

    def broken():
        raise RuntimeError("database on fire")

    monkeypatch.setattr(selectors, "case_stats", broken)
    client.raise_request_exception = False
    response = client.get("/api/stats")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "about:blank",
        "title": "Internal Server Error",
        "status": 500,
        "detail": "The server failed to answer.",
        "instance": "/api/stats",
    }
