"""A search text over `MAX_QUERY_CHARS` is one problem, found by the one parser and
reported by every front door (the limit and the length given): the API as a 400 problem
document, MCP as a tool error in the same words, the page by a button that sends the text to
log matching, listing no case. It used to be cut to the limit and searched, so the page said
the query was left out and then "No cases match" the cut text."""

from __future__ import annotations

import re

import pytest
from django.http import QueryDict

from incidents.selectors import MAX_QUERY_CHARS, parse_search
from tests.web.html import element, text_of

pytestmark = pytest.mark.django_db

TOO_LONG = ("nccl timeout " * 50)[: MAX_QUERY_CHARS + 100].strip()  # 600 characters
DETAIL = (
    "must be at most 500 characters long; it has 600 (a log or a traceback goes to log matching:"
    " the /match/ page, POST /api/match, MCP match_log or triage's text)"
)


def test_the_parser_refuses_it_whole_saying_the_limit_and_the_length():
    assert (MAX_QUERY_CHARS, len(TOO_LONG)) == (500, 600)
    search, [problem] = parse_search(QueryDict(f"q={TOO_LONG}"))
    assert search.q == ""  # not cut and searched
    assert (problem.parameter, problem.detail) == ("q", DETAIL)


def test_the_api_answers_400_naming_q(client):
    response = client.get("/api/cases/", {"q": TOO_LONG})
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "q", "detail": DETAIL}]


def test_search_incidents_is_a_tool_error_in_the_same_words(mcp):
    assert mcp.error("search_incidents", query=TOO_LONG) == f"query: {DETAIL}."
    # The limit is still stated in the tool's schema for clients that check first.
    [tool] = [t for t in mcp.run(lambda c: c.list_tools()).tools if t.name == "search_incidents"]
    assert tool.input_schema["properties"]["query"]["maxLength"] == MAX_QUERY_CHARS


def test_the_page_offers_to_match_it_as_a_log_and_lists_nothing(client):
    """Most often pasted log lines: the page listed every case under the notice, read as
    their results, and named API doors and MCP tools; it now offers log matching."""
    response = client.get("/cases/", {"q": TOO_LONG})
    assert response.status_code == 200
    html = response.content.decode()
    notice = element(html, "div", class_="note notice log-paste")
    assert text_of(notice) == (
        "Nothing was searched: your text is 600 characters long, and a search reads at most 500, a"
        " few words or one error line. Log lines or a traceback are read by log matching, which"
        " finds the cases whose failure signatures they show. Match these lines as a log Or keep"
        " only the error line in the search box and search again."
    )
    form = element(notice, "form")
    assert '<form method="post" action="/match/">' in form
    assert f'<input type="hidden" name="text" value="{TOO_LONG}">' in form
    results = element(html, "section", class_="results")
    assert 'class="card' not in results and "result-count" not in results
    assert "POST /api/match" not in html and "could not be used" not in html
    assert re.search(r"<h1>Cases</h1>", html)


def test_the_page_keeps_the_text_in_the_box_only(client):
    response = client.get("/cases/", {"q": TOO_LONG})
    html = response.content.decode()
    assert f'name="q" value="{TOO_LONG}"' in html  # to shorten, not to type again
    # No link of the page (sort, facets, JSON twin) searches it, cut or whole.
    assert "q=nccl" not in html
    assert "q=" not in response["Link"]


def test_triage_refuses_long_symptoms_in_the_same_words(client, mcp):
    """Triage's symptoms are searched as a query is: the same limit, the same words (they
    were DRF's and pydantic's own), the limit still in both schemas."""
    response = client.post("/api/triage", {"symptoms": TOO_LONG}, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": "symptoms", "detail": DETAIL}]
    assert mcp.error("triage", symptoms=TOO_LONG) == f"symptoms: {DETAIL}."
    [tool] = [t for t in mcp.run(lambda c: c.list_tools()).tools if t.name == "triage"]
    assert tool.input_schema["properties"]["symptoms"]["maxLength"] == MAX_QUERY_CHARS
    schema = client.get("/api/schema/").json()
    body = schema["components"]["schemas"]["TriageRequest"]["properties"]["symptoms"]
    assert body["maxLength"] == MAX_QUERY_CHARS
    # At the limit it is searched.
    at_limit = {"symptoms": TOO_LONG[:MAX_QUERY_CHARS]}
    assert client.post("/api/triage", at_limit, content_type="application/json").status_code == 200
