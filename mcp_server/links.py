"""Links MCP results carry: each case's web page and JSON URL (the API's `html_url` and `url`,
absolute from `SITE_URL`), and `resource_link` content blocks to `incident://` resources."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from mcp.types import ResourceLink

INCIDENT_URI = "incident://{case_id}"
TOPIC_URI = "topic://{slug}"
# Result keys whose entries are cases (each with "id" and "title"); a document's `affected`
# ranges have no "id" and are passed over.
CASE_LISTS = ("cases", "hits", "incidents", "similar", "latest_cases", "affected", "unknown")


def case_links(case_id: str) -> dict[str, str]:
    """`{"url": JSON URL, "html_url": web page}` of a case, as the API names them."""
    return {
        "url": settings.SITE_URL + reverse("api:case-detail", args=[case_id]),
        "html_url": settings.SITE_URL + reverse("incidents:case-detail", args=[case_id]),
    }


def incident_uri(case_id: str) -> str:
    return INCIDENT_URI.format(case_id=case_id)


def resource_links(structured: dict[str, Any]) -> list[ResourceLink]:
    """One `resource_link` per case a result lists (or the case a document is), in order."""
    entries: list[dict[str, Any]] = []
    for key in CASE_LISTS:
        value = structured.get(key)
        if isinstance(value, list):
            entries += [e for e in value if isinstance(e, dict) and "id" in e]
    if not entries and "id" in structured and "html_url" in structured:
        entries = [structured]
    seen: set[str] = set()
    links = []
    for entry in entries:
        if entry["id"] in seen:
            continue
        seen.add(entry["id"])
        links.append(
            ResourceLink(
                type="resource_link",
                uri=incident_uri(entry["id"]),
                name=entry["id"],
                title=entry.get("title"),
                mime_type="text/markdown",
            )
        )
    return links
