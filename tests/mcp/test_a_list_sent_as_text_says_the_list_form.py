"""`get_incident`'s `fields` is a list, and also text as the API's query string takes it
(`fields=title,summary`). An assistant sending the API's form got "Input should be a valid
list" (a new user's walkthrough), then a message naming the list form; now the text is read
as the API reads it (`selectors.parse_field_list`), and a value that is neither names both
forms."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_fields_as_text_gives_what_the_list_gives(mcp):
    by_text = mcp.ok("get_incident", id="IL-0428", fields="summary, title")
    assert list(by_text) == ["id", "title", "summary", "url", "html_url"]
    assert by_text == mcp.ok("get_incident", id="IL-0428", fields=["title", "summary"])


def test_fields_of_another_shape_names_both_forms(mcp):
    for wrong, got in ((5, "5"), ({"title": True}, '{"title": true}'), ([1], "[1]")):
        assert mcp.error("get_incident", id="IL-0428", fields=wrong) == (
            "Invalid arguments: fields: must be field names, a list or comma-separated text "
            f"(at most 50 names, 1000 characters) (got {got})."
        )


def test_a_pasted_page_as_fields_is_refused_without_being_quoted(mcp):
    message = mcp.error("get_incident", id="IL-0428", fields="title," * 400)
    assert message.startswith("Invalid arguments: fields: must be field names")
    assert len(message) < 300
