"""The pages, the JSON API and the MCP tools read filters with one parser: for the same
spelling they select the same cases, or report the same problem (issue 9.10).

Each spelling is a query string. The HTML page `/cases/`, `GET /api/cases/` and the MCP
tool `list_incidents` (its arguments built from the same pairs: repeated values as a list,
`exclude_<facet>` as `exclude=["facet:value"]`) are asked, all newest first, 20 per page.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode

import pytest

from incidents.selectors import FILTER_FACETS
from tests.web.html import element, links, text_of

pytestmark = pytest.mark.django_db

SELECTING = {
    "slug": "symptom=nccl-timeout",
    "name": "symptom=NCCL timeout",
    "synonym": "symptom=watchdog timeout",
    "wrong case": "symptom=NCCL TIMEOUT",
    "topic by name": "topic=Training",
    "root cause by synonym": "root_cause=hardware failure",
    "component by synonym": "component=IB",
    "organization in lower case": "organization=openai",
    "accelerator in lower case": "accelerator=nvidia h100 80gb",
    "accelerator family by slug": "accelerator=a100",
    "accelerator family as cases spell it": "accelerator=NVIDIA A100",
    "accelerator model by alias": "accelerator=A100-SXM4-80GB",
    "organization by alias": "organization=FAIR",
    "repeated spelling of one value": "symptom=nccl-timeout&symptom=NCCL timeout",
    "repeated, any of two": "symptom=Training hang&symptom=nccl-timeout",
    "excluded": "exclude_topic=inference",
    "excluded by synonym, with a filter": "symptom=nccl-timeout&exclude_topic=serving",
    "date range": "published_after=2022-01-01&published_before=2023-12-31",
    "year": "year=2024",
    # An HTML form submits its empty fields: each is not given, at every door.
    "empty fields": "symptom=nccl-timeout&sort=&published_after=&published_before=&topic=&min_nodes=",
}
REFUSED = {
    "misspelt": "symptom=nccl-timout",
    "unknown": "symptom=gpu melting",
    "unknown topic (all listed)": "topic=gpus",
    "misspelt organization": "organization=OpenAl",
    "misspelt accelerator": "accelerator=NVIDIA A1000",
    "misspelt exclusion": "exclude_component=infiniban",
    "malformed date": "published_after=2024-13-01",
    "range ending before it starts": "published_after=2024-01-01&published_before=2023-01-01",
}


def pairs(spelling: str) -> list[tuple[str, str]]:
    return parse_qsl(spelling)


def html_answer(client, spelling: str):
    html = client.get("/cases/?" + urlencode(pairs(spelling))).content.decode()
    ids = re.findall(r'<span class="case-id">(IL-\d+)</span>', element(html, "section", class_="results"))
    count = re.search(r"(?:of )?(\d+) cases?[ ,.]", text_of(element(html, "p", id="result-count")))
    notice = element(html, "div", class_="note notice") if 'class="note notice"' in html else None
    return ids, int(count.group(1)) if count else 0, notice


def api_answer(client, spelling: str):
    response = client.get("/api/cases/?" + urlencode(pairs(spelling)))
    body = response.json()
    if response.status_code == 400:
        return None, body["errors"]
    assert response.status_code == 200, body
    return ([hit["id"] for hit in body["results"]], body["count"]), None


def mcp_arguments(spelling: str) -> dict:
    arguments: dict = {}
    for name, value in pairs(spelling):
        if name.startswith("exclude_"):
            arguments.setdefault("exclude", []).append(f"{name[8:]}:{value}")
        elif name in FILTER_FACETS:
            arguments.setdefault(name, []).append(int(value) if name == "year" else value)
        else:
            arguments[name] = value
    for name in FILTER_FACETS:
        if name in arguments and len(arguments[name]) == 1:
            arguments[name] = arguments[name][0]
    return arguments


@pytest.mark.parametrize("spelling", SELECTING.values(), ids=SELECTING.keys())
def test_every_door_selects_the_same_cases(client, mcp, spelling):
    html_ids, html_total, notice = html_answer(client, spelling)
    (api_ids, api_total), errors = api_answer(client, spelling)
    result = mcp.ok("list_incidents", limit=20, **mcp_arguments(spelling))
    assert notice is None and errors is None
    assert api_total > 0 and api_ids
    assert html_ids == api_ids == [case["id"] for case in result["incidents"]]
    assert html_total == api_total == result["total"]


def test_spellings_of_a_value_select_what_its_slug_selects(client):
    by_slug = api_answer(client, SELECTING["slug"])
    for name in ("name", "synonym", "wrong case", "repeated spelling of one value"):
        assert api_answer(client, SELECTING[name]) == by_slug, name


@pytest.mark.parametrize("spelling", REFUSED.values(), ids=REFUSED.keys())
def test_every_door_reports_the_same_problem(client, mcp, spelling):
    _, errors = api_answer(client, spelling)
    assert errors, "the API accepted it"
    _, _, notice = html_answer(client, spelling)
    assert notice is not None, "the page showed no notice"
    message = mcp.error("list_incidents", **mcp_arguments(spelling))
    notice_text = text_of(notice)
    fixes = [dict(parse_qsl(href.partition("?")[2])) for href, _ in links(notice)]
    for error in errors:
        value = error.get("value")
        if value is not None:
            assert f"“{value}”" in notice_text
            assert repr(value) in message
        for suggestion in error.get("suggestions", []):
            assert any(fix.get(error["parameter"]) == suggestion for fix in fixes), suggestion
            assert suggestion in message
        assert error["parameter"] in message or error["detail"].startswith("unknown")
