"""A parameter given empty is not given, at every door (`selectors.is_blank`).

An HTML form submits its empty fields (`?q=&sort=&published_after=`), and a script builds
query strings from optional values. `?topic=` was ignored while `?sort=`, `?fields=`,
`?page=` and `?published_after=` were 400s at the API and notices on the page; an MCP tool
refused `"sort": ""` and `"published_after": ""`. Now each is read as absent: the answer is
the one without it. A required value (`query`, `text`) given empty is still refused.
"""

from __future__ import annotations

import json
import re

import pytest

from tests.api.conftest import openapi_schema
from tests.web.html import element

pytestmark = pytest.mark.django_db

LIST_PARAMETERS = [
    "q",
    "topic",
    "exclude_symptom",
    "year",
    "scale",
    "published_after",
    "published_before",
    "min_nodes",
    "sort",
    "ordering",
    "page",
    "page_size",
    "fields",
    "facets",
]


def api_ids(client, query: str) -> tuple[int, list[str]]:
    response = client.get("/api/cases/" + query)
    assert response.status_code == 200, response.json()
    body = response.json()
    return body["count"], [hit["id"] for hit in body["results"]]


@pytest.mark.parametrize("blank", ["", "  "], ids=["empty", "spaces"])
@pytest.mark.parametrize("parameter", LIST_PARAMETERS)
def test_the_case_list_reads_a_blank_parameter_as_not_given(client, parameter, blank):
    assert api_ids(client, f"?{parameter}={blank}") == api_ids(client, "")


def test_a_blank_parameter_beside_real_ones_changes_nothing(client):
    assert api_ids(client, "?symptom=nccl-timeout&sort=oldest&page=") == api_ids(
        client, "?symptom=nccl-timeout&sort=oldest"
    )
    # A blank `sort` does not count as a second one either.
    assert api_ids(client, "?sort=&sort=oldest") == api_ids(client, "?sort=oldest")


def test_an_empty_fields_gives_every_field_and_fields_of_commas_is_still_refused(client):
    whole = client.get("/api/cases/IL-0428").json()
    assert client.get("/api/cases/IL-0428?fields=").json() == whole
    [error] = client.get("/api/cases/IL-0428?fields=,").json()["errors"]
    assert error["parameter"] == "fields"
    assert error["detail"].startswith("name at least one field out of id, title")


def test_an_empty_limit_of_similar_cases_is_the_default(client):
    default = client.get("/api/cases/IL-0428/similar").json()
    assert client.get("/api/cases/IL-0428/similar?limit=").json() == default
    assert len(default["results"]) == 5


def test_an_empty_reference_beside_a_url_looks_the_url_up(client):
    url = "https://github.com/NVIDIA/nccl/issues/1116"
    assert client.get(f"/api/lookup?ref=&url={url}").json() == client.get(f"/api/lookup?url={url}").json()
    [error] = client.get("/api/lookup?ref=").json()["errors"]
    assert (error["parameter"], error["detail"]) == (
        "ref",
        "give `ref` (an alias such as NVIDIA/nccl#1116) or `url`",
    )


def test_the_schema_says_every_optional_query_parameter_may_be_empty():
    parameters = openapi_schema()["paths"]["/api/cases/"]["get"]["parameters"]
    query = {p["name"]: p for p in parameters if p["in"] == "query"}
    flagged = {name for name, p in query.items() if p.get("allowEmptyValue")}
    assert flagged == {
        *("sort", "ordering", "fields", "page", "page_size", "facets", "published_after", "published_before"),
        *("min_accelerators", "max_accelerators", "min_nodes", "max_nodes"),
    }
    # Plain text (`q`) admits "" as it is, and a repeatable filter drops its blank values as it
    # always did (an array of text).
    assert query["q"]["schema"] == {"type": "string"}
    assert query["topic"]["schema"] == {"type": "array", "items": {"type": "string"}}


def page_state(client, query: str) -> tuple[list[str], str | None]:
    html = client.get("/cases/" + query).content.decode()
    ids = re.findall(r'<span class="case-id">(IL-\d+)</span>', element(html, "section", class_="results"))
    notice = element(html, "div", class_="note notice") if 'class="note notice"' in html else None
    return ids, notice


def test_the_page_reads_empty_form_fields_as_not_given(client):
    empty = "?q=&sort=&page=&published_after=&published_before=&topic=&min_nodes="
    assert page_state(client, empty) == page_state(client, "")
    assert page_state(client, "")[1] is None


def test_the_page_and_the_api_agree_on_a_blank_beside_a_page(client):
    # Django's `QueryDict.get` gives the last value, the blank one: the page read page 1.
    assert page_state(client, "?page=2&page=") == page_state(client, "?page=2")
    assert page_state(client, "?page=2")[0] == api_ids(client, "?page=2&page=")[1]


def test_the_page_and_the_api_agree_on_a_blank_sort(client):
    ids, notice = page_state(client, "?symptom=nccl-timeout&sort=")
    assert notice is None
    assert ids == api_ids(client, "?symptom=nccl-timeout&sort=")[1]


def test_mcp_leaves_out_an_optional_argument_given_empty(mcp):
    plain = mcp.ok("list_incidents", limit=5)
    blanks = mcp.ok(
        "list_incidents",
        limit=5,
        sort="",
        published_after="",
        published_before=" ",
        topic="",
        min_nodes="",
        cursor="",
    )
    assert blanks == plain
    searched = mcp.ok("search_incidents", query="NCCL timeout", limit=3)
    assert mcp.ok("search_incidents", query="NCCL timeout", limit=3, published_after="", year="") == searched
    assert mcp.ok("vocab", facet="") == mcp.ok("vocab")


def test_mcp_still_refuses_an_empty_required_argument(mcp):
    assert mcp.error("search_incidents", query="") == "Invalid arguments: query must not be empty."
    assert mcp.error("match_log", text="") == "Invalid arguments: text must not be empty."


def test_mcp_and_the_api_agree_on_a_triage_with_an_empty_job(client, mcp):
    """`job: ""` was a 400 at the API and a tool error at MCP; both now read it as unknown."""
    body = {"symptoms": "NCCL watchdog timeout on allreduce", "job": "", "framework": "", "limit": ""}
    response = client.post("/api/triage", json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.json()
    without = client.post(
        "/api/triage", json.dumps({"symptoms": body["symptoms"]}), content_type="application/json"
    ).json()
    assert response.json() == without
    tool = mcp.ok("triage", **body)
    assert [case["id"] for case in tool["cases"]] == [case["id"] for case in without["cases"]]


def test_the_api_reads_an_empty_match_limit_as_not_given_and_still_needs_text(client):
    log = "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus."

    def post(body: dict):
        return client.post("/api/match", json.dumps(body), content_type="application/json")

    assert post({"text": log, "limit": ""}).json() == post({"text": log}).json()
    [error] = post({"text": "", "limit": ""}).json()["errors"]
    assert error["parameter"] == "text"
