"""`get_topic` reads `topic` as `slug` and `explain_error` reads `code` as `text` (walk #18).

An assistant naturally sends `{"topic": "interconnect"}` to get_topic and `{"code":
"ncclSystemError"}` to explain_error; each was refused ("Unknown argument 'topic'"), costing
a round trip. The aliases are read before the arguments are checked and are in no schema,
so tools/list is unchanged.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_get_topic_reads_topic_as_its_slug(mcp):
    assert mcp.ok("get_topic", topic="interconnect", latest=2) == mcp.ok(
        "get_topic", slug="interconnect", latest=2
    )


def test_explain_error_reads_code_as_its_text(mcp):
    explained = mcp.ok("explain_error", code="ncclSystemError")
    assert [code["slug"] for code in explained["codes"]] == ["nccl-system-error"]
    assert explained == mcp.ok("explain_error", text="ncclSystemError")


def test_an_alias_beside_its_argument_is_refused_as_naming_it_twice(mcp):
    # Was "Unknown argument 'topic' (search_incidents and list_incidents take it)", though
    # get_topic reads `topic`: the caller was not told to drop one of the two.
    assert mcp.error("get_topic", topic="interconnect", slug="interconnect") == (
        "'topic' and 'slug' name the same argument of get_topic ('topic' is read as 'slug'):"
        " keep 'slug' and leave out 'topic'."
    )
    assert mcp.error("explain_error", code="ncclSystemError", text="NCCL error 2") == (
        "'code' and 'text' name the same argument of explain_error ('code' is read as 'text'):"
        " keep 'text' and leave out 'code'."
    )


def test_an_alias_given_to_another_tool_is_still_unknown_there(mcp):
    assert mcp.error("get_incident", id="IL-0428", slug="x", topic="interconnect").startswith(
        "Unknown argument 'slug'"
    )
