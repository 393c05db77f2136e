"""`fields` is read by one parser at both doors that take it (`selectors.parse_field_list`):
`GET /api/cases/{id}?fields=` and MCP `get_incident`. MCP took only a list while the API took
only text; now both take comma-separated text, several values (repeated in the query string,
a list for the tool) or both, and refuse an unknown name with the same words, naming the
nearest field and every field that works."""

from __future__ import annotations

import pytest

from api.views.cases import DETAIL_FIELDS
from incidents.document_model import case_model
from incidents.selectors import parse_field_list
from incidents.selectors.field_lists import NO_FIELD

pytestmark = pytest.mark.django_db

CHOICES = ("id", "title", "summary", "root_cause", "checks")


def test_the_parser_reads_text_lists_and_both_in_the_order_of_the_choices():
    for given in (
        "checks,title",
        " checks , title ",
        ["checks", "title"],
        ["checks,title"],
        ["title", "checks,"],
    ):
        assert parse_field_list(given, CHOICES) == (["title", "checks"], []), given


def test_the_parser_takes_blanks_as_not_given_and_refuses_naming_no_field():
    for blank in (None, "", "  ", [""], ["", " "]):
        assert parse_field_list(blank, CHOICES) == (None, []), blank
    for nothing in (",", [","], []):
        values, [problem] = parse_field_list(nothing, CHOICES)
        assert (values, problem.parameter, problem.value) == ([], "fields", None)
        assert problem.detail == "name at least one field out of id, title, summary, root_cause, checks"


def test_the_parser_names_an_unknown_field_with_the_nearest_and_keeps_the_rest():
    values, [problem] = parse_field_list("titel,checks", CHOICES)
    assert values == ["checks"]
    assert (problem.parameter, problem.value) == ("fields", "titel")
    assert problem.detail == "unknown field; choose from id, title, summary, root_cause, checks"
    assert [s.value for s in problem.suggestions] == ["title"]


@pytest.mark.parametrize(
    ("query", "argument"),
    [
        ("fields=root_cause,checks", "root_cause,checks"),
        ("fields=root_cause&fields=checks", ["root_cause", "checks"]),
        ("fields=checks,root_cause&fields=title", ["checks,root_cause", "title"]),
        ("fields=%20title%20", " title "),
    ],
)
def test_each_form_gives_the_same_fields_at_both_doors(client, mcp, query, argument):
    from_api = client.get(f"/api/cases/IL-0428?{query}").json()
    from_tool = mcp.ok("get_incident", id="IL-0428", fields=argument)
    # The tool's answer keeps its links (url, html_url) beside the fields asked.
    asked = [key for key in from_tool if key not in ("url", "html_url")]
    assert asked == list(from_api)
    assert {key: from_tool[key] for key in asked} == from_api


def test_an_unknown_field_is_refused_alike_naming_what_would_work(client, mcp):
    [error] = client.get("/api/cases/IL-0428?fields=title,titel").json()["errors"]
    message = mcp.error("get_incident", id="IL-0428", fields="title,titel")
    assert (error["parameter"], error["value"], error["suggestions"]) == ("fields", "titel", ["title"])
    # Each door names the fields it serves: the document's, and at the API the links and
    # editorial fields it adds after them (`api.views.cases.DETAIL_FIELDS`).
    document = ", ".join(case_model().top_level)
    assert error["detail"] == (
        f"unknown field; choose from {document}, url, html_url, similar_url, history_url, "
        "modified, retraction_reason"
    )
    # MCP's wording of the same problem (`filters.problem_message`): the detail, the value, the nearest.
    assert message == f"fields: unknown field; choose from {document} (got 'titel'). Send instead: 'title'."
    assert mcp.error("get_incident", id="IL-0428", fields=["title", "titel"]) == message


def test_naming_no_field_is_refused_alike(client, mcp):
    [error] = client.get("/api/cases/IL-0428?fields=,").json()["errors"]
    assert (error["parameter"], error["detail"]) == (
        "fields",
        NO_FIELD.format(choices=", ".join(DETAIL_FIELDS)),
    )
    document = NO_FIELD.format(choices=", ".join(case_model().top_level))
    assert mcp.error("get_incident", id="IL-0428", fields=",") == f"fields: {document}."
    assert mcp.error("get_incident", id="IL-0428", fields=[]) == f"fields: {document}."


def test_a_field_named_in_other_words_suggests_the_field_meant(client, mcp):
    """`fix` is triage's name for the remediation; `cause` an engineer's for the root cause:
    spelt like no field, each is answered with the field it stands for at both doors."""
    for name, meant in (("fix", "remediation"), ("cause", "root_cause")):
        [error] = client.get(f"/api/cases/IL-0428?fields=title,{name}").json()["errors"]
        assert (error["value"], error["suggestions"]) == (name, [meant])
        message = mcp.error("get_incident", id="IL-0428", fields=["title", name])
        assert message.endswith(f"(got '{name}'). Send instead: '{meant}'.")
