"""`resources/list`: every topic, then every published case, as concrete resources, one page
of `PAGE_SIZE` at a time (the protocol's cursor pagination)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from incidents import selectors
from incidents.models import Case, Facet

from .cursors import decode_cursor, encode_cursor
from .links import TOPIC_URI, incident_uri

PAGE_SIZE = 100
CURSOR_KEY = "resources/list"


def _offset(cursor: Any) -> int:
    try:
        return decode_cursor(cursor if isinstance(cursor, str) else None, CURSOR_KEY)
    except ToolError as exc:  # the reason, as a protocol error here
        raise MCPError(code=INVALID_PARAMS, message=f"Invalid cursor: {exc}") from exc


def resource_page(cursor: Any = None) -> tuple[list[dict[str, Any]], str | None]:
    """The resources on the page `cursor` points at (wire form) and the next page's cursor.

    Costs two queries (topics, then one slice of cases).
    """
    offset = _offset(cursor)
    topics = [
        {
            "uri": TOPIC_URI.format(slug=term.slug),
            "name": f"topic {term.slug}",
            "title": f"Topic: {term.name}",
            "mimeType": "text/markdown",
        }
        for term in selectors.vocabulary(Facet.TOPIC)
    ]
    page = topics[offset : offset + PAGE_SIZE]
    case_offset = max(0, offset - len(topics))
    wanted = PAGE_SIZE - len(page)
    cases = list(
        Case.objects.published()
        .order_by("id")
        .values_list("id", "title")[case_offset : case_offset + wanted + 1]
    )
    more = len(cases) > wanted
    page += [
        {"uri": incident_uri(case_id), "name": case_id, "title": title, "mimeType": "text/markdown"}
        for case_id, title in cases[:wanted]
    ]
    return page, encode_cursor(offset + PAGE_SIZE, CURSOR_KEY) if more else None
