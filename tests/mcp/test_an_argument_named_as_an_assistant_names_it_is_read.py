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


def test_an_alias_beside_its_argument_is_still_refused(mcp):
    assert mcp.error("get_topic", topic="interconnect", slug="interconnect") == (
        "Unknown argument 'topic' (search_incidents and list_incidents take it);"
        " get_topic takes: slug, latest."
    )
