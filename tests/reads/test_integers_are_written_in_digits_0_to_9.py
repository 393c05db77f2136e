"""Every integer parameter follows one rule on every door (`selectors.whole_number`): digits
0-9, blanks around them and a leading minus allowed. `int()` alone read `page=٣` (Arabic-Indic
three) as page 3 while `min_nodes=٣` was refused; now both are refused, naming the parameter
and saying which digits count, by the API (400), the page (a notice, the value left out) and
MCP (a tool error)."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from incidents.selectors import whole_number
from tests.mcp.conftest import InMemoryMcp
from tests.web.html import text_of

pytestmark = pytest.mark.django_db

ARABIC_THREE, FULL_WIDTH_THREE = "\u0663", "\uff13"  # ٣, ３


@pytest.mark.parametrize(
    ("text", "number"),
    [("3", 3), (" 42 ", 42), ("-5", -5), ("0", 0), ("99999999999999999999", 99999999999999999999)],
)
def test_digits_0_to_9_are_a_whole_number(text, number):
    assert whole_number(text) == number


@pytest.mark.parametrize(
    "text", [ARABIC_THREE, FULL_WIDTH_THREE, "²", "1_000", "+3", "3.0", "", "-", "three"]
)
def test_anything_else_is_not(text):
    assert whole_number(text) is None


@pytest.mark.parametrize(
    ("parameter", "detail"),
    [
        ("page", "must be a whole number (digits 0-9 only)"),
        ("page_size", "must be a whole number (digits 0-9 only)"),
        ("min_nodes", "must be a whole number from 0 to 10,000,000 (digits 0-9 only)"),
        ("max_accelerators", "must be a whole number from 0 to 10,000,000 (digits 0-9 only)"),
        ("year", "must be a year between 1990 and 2100 (digits 0-9 only)"),
    ],
)
@pytest.mark.parametrize("digit", [ARABIC_THREE, FULL_WIDTH_THREE])
def test_the_api_refuses_other_digits_naming_the_parameter(client, parameter, detail, digit):
    response = client.get(f"/api/cases/?{parameter}={quote(digit)}")
    assert response.status_code == 400
    assert response.json()["errors"] == [{"parameter": parameter, "detail": detail, "value": digit}]


def test_the_api_refuses_what_int_alone_would_read(client):
    response = client.get("/api/cases/?page=1_0")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"parameter": "page", "detail": "must be a whole number", "value": "1_0"}
    ]


def test_the_similar_cases_limit_follows_the_same_rule(client):
    response = client.get(f"/api/cases/IL-0428/similar?limit={quote(ARABIC_THREE)}")
    assert response.status_code == 400
    assert response.json()["errors"][0]["parameter"] == "limit"


def test_the_page_shows_page_one_and_says_why(client):
    html = client.get(f"/cases/?page={quote(ARABIC_THREE)}").content.decode()
    notice = re.search(r'<div class="note notice" role="status">(.*?)</div>', html, re.S)
    assert notice is not None
    assert "Page: must be a whole number (digits 0-9 only) (given “٣”)." in text_of(notice.group(1))
    # The value is left out, as the notice says: the first page, not the third.
    assert "1–20 of" in html
    assert client.get("/cases/?page=3").content.decode().count("41–60 of") == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            {"limit": ARABIC_THREE},
            "Invalid arguments: limit: must be a whole number from 1 to 50 (digits 0-9 only), "
            'such as 20 or "20" (got "٣").',
        ),
        (
            {"min_nodes": ARABIC_THREE},
            'Invalid arguments: min_nodes: must be a whole number (digits 0-9 only) (got "٣").',
        ),
        (
            {"year": "٢٠٢٤"},
            "Invalid arguments: year: must be a whole number from 1990 to 2100 (digits 0-9 only), "
            'such as 1990 or "1990" (got "٢٠٢٤").',
        ),
        (
            {"limit": "1_0"},
            'Invalid arguments: limit: must be a whole number from 1 to 50, such as 20 or "20" (got "1_0").',
        ),
        (
            {"limit": True},
            'Invalid arguments: limit: must be a whole number from 1 to 50, such as 20 or "20" (got true).',
        ),
    ],
)
def test_mcp_refuses_the_same_text_naming_the_argument(arguments, message):
    assert InMemoryMcp().error("list_incidents", **arguments) == message


def test_mcp_still_reads_digits_sent_as_text():
    listed = InMemoryMcp().ok("list_incidents", limit="2", min_nodes=" 1 ")
    assert len(listed["incidents"]) == 2
