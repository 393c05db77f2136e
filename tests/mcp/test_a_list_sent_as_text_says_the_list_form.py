"""`get_incident`'s `fields` is a list; the API's query string takes `fields=title,summary`.
An assistant sending the API's form got "Input should be a valid list", with neither the
list form nor the field names (a new user's walkthrough): the error now gives both."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_fields_as_text_names_the_list_form_and_the_fields(mcp):
    message = mcp.error("get_incident", id="IL-0428", fields="title,summary")
    assert message.startswith(
        "Invalid arguments: fields must be a list such as"
        ' ["title", "summary"] (got "title,summary"); values: '
    )
    assert "root_cause" in message and "remediation" in message


def test_the_list_form_it_names_works(mcp):
    result = mcp.call("get_incident", id="IL-0428", fields=["title", "summary"])
    assert not result.is_error
    assert result.structured_content["title"]
