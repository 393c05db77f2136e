"""One summary shape per case, shared by the JSON API and the MCP tools.

The API lists every field (plus its `url` and `html_url` for the request's host); MCP keeps a
subset (its `CaseSummary` model names which) with its own links. Neither builds its own.
"""

from __future__ import annotations

from typing import TypedDict

from incidents.models import Case


class CaseSummaryFields(TypedDict):
    id: str
    title: str
    organization: str
    published: str  # YYYY-MM-DD
    status: str
    topics: list[str]  # topic slugs
    symptom_tags: list[str]  # symptom tag names
    root_cause_category: str
    components: list[str]  # component names
    accelerator: str | None


def case_summary_fields(case: Case) -> CaseSummaryFields:
    """A case in a list, read from a case fetched `with_summary()` (no queries)."""
    return {
        "id": case.id,
        "title": case.title,
        "organization": case.organization,
        "published": case.published.isoformat(),
        "status": case.status,
        "topics": [term.slug for term in case.topics],
        "symptom_tags": [term.name for term in case.symptom_tags],
        "root_cause_category": case.root_cause_category.name,
        "components": [term.name for term in case.components],
        "accelerator": case.accelerator,
    }
