"""The case document: one function builds it, export, the API and MCP serve it unchanged.

`case_document` reads a case fetched with `Case.objects.with_document()` (no further
queries) and returns a dict shaped exactly like `case.schema.json`, keys in schema order.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from .affected import normalised_range
from .models import Case, Facet
from .references import normalised_reference


class SourceDocument(TypedDict):
    title: str | None
    url: str


class CaseDocument(TypedDict, total=False):
    id: str
    title: str
    organization: str
    published: str
    occurred: str | None
    status: str
    topics: list[str]
    summary: str
    facts: dict[str, Any]
    environment: dict[str, Any]
    symptoms: dict[str, Any]
    scale_tables: list[dict[str, Any]]
    root_cause: dict[str, Any]
    detection: str | None
    remediation: list[str]
    action_items: list[str]
    lessons: list[str]
    checks: list[str]
    sources: list[SourceDocument]
    related: list[str]
    affected: list[dict[str, Any]]
    references: list[dict[str, Any]]


def case_document(case: Case) -> CaseDocument:
    """Build the schema-shaped document of one case (no queries if prefetched)."""
    return {
        "id": case.id,
        "title": case.title,
        "organization": case.organization,
        "published": case.published.isoformat(),
        "occurred": case.occurred.isoformat() if case.occurred else None,
        "status": case.status,
        "topics": [term.slug for term in case.terms_of(Facet.TOPIC)],
        "summary": case.summary,
        "facts": {
            "severity": case.severity,
            "scope": case.scope,
            "users_affected": case.users_affected,
            "region": case.region,
            "time_to_detect": case.time_to_detect,
            "time_to_resolve": case.time_to_resolve,
        },
        "environment": {
            "cluster": case.cluster,
            "accelerator": case.accelerator,
            "accelerator_count": case.accelerator_count,
            "node_count": case.node_count,
            "components": [term.name for term in case.terms_of(Facet.COMPONENT)],
            "workload": workload.slug if (workload := case.workload) else None,
        },
        "symptoms": {
            "description": case.symptoms_description,
            "tags": [term.name for term in case.terms_of(Facet.SYMPTOM)],
            "error_codes": [term.name for term in case.terms_of(Facet.ERROR_CODE)],
        },
        "scale_tables": [_scale_table_document(table) for table in case.scale_tables.all()],
        "root_cause": {
            "category": case.root_cause_category.name,
            "description": case.root_cause_description,
            "trigger": case.root_cause_trigger,
        },
        "detection": case.detection,
        "remediation": list(case.remediation),
        "action_items": list(case.action_items),
        "lessons": list(case.lessons),
        "checks": list(case.checks),
        "sources": [{"title": s.title, "url": s.url} for s in case.sources.all()],
        "related": [link.target_id for link in case.related_links.all()],
        # Stored as import normalised them; spelled out again in schema order because
        # PostgreSQL's jsonb reorders object keys.
        "affected": [normalised_range(item) for item in case.affected],
        "references": [normalised_reference(item) for item in case.references],
    }


def _scale_table_document(table) -> dict[str, Any]:
    columns = list(table.columns.all())
    return {
        "caption": table.caption,
        "columns": [{"key": c.key, "label": c.label, "unit": c.unit} for c in columns],
        "rows": [
            {
                # Column order, not storage order: PostgreSQL's jsonb reorders object keys.
                "values": {c.key: row.values[c.key] for c in columns if c.key in row.values},
                "outcome": row.outcome,
                "note": row.note,
            }
            for row in table.rows.all()
        ],
    }


def dumps_document(document: CaseDocument | dict[str, Any], *, indent: int | None = 2) -> str:
    """Serialise a document the one way export writes it (UTF-8 text, stable layout)."""
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    return text + "\n" if indent is not None else text


def normalized_document(document: dict[str, Any]) -> dict[str, Any]:
    """An incoming document spelled out the way `case_document` builds it, for comparison:
    optional sections filled with their empty values, scale-row values in column order,
    `affected` and `references` items spelled out (components and error codes as written:
    `services` resolves their spellings before comparing)."""
    facts = document.get("facts", {})
    environment = document.get("environment", {})
    root_cause = document["root_cause"]
    tables = []
    for table in document.get("scale_tables", []):
        keys = [column["key"] for column in table["columns"]]
        tables.append(
            {
                "caption": table["caption"],
                "columns": [
                    {"key": c["key"], "label": c["label"], "unit": c.get("unit")} for c in table["columns"]
                ],
                "rows": [
                    {
                        "values": {k: row["values"][k] for k in keys if k in row["values"]},
                        "outcome": row["outcome"],
                        "note": row.get("note"),
                    }
                    for row in table["rows"]
                ],
            }
        )
    return {
        "id": document["id"],
        "title": document["title"],
        "organization": document["organization"],
        "published": document["published"],
        "occurred": document.get("occurred"),
        "status": document["status"],
        "topics": list(document["topics"]),
        "summary": document["summary"],
        "facts": {
            key: facts.get(key)
            for key in ("severity", "scope", "users_affected", "region", "time_to_detect", "time_to_resolve")
        },
        "environment": {
            **{
                key: environment.get(key)
                for key in ("cluster", "accelerator", "accelerator_count", "node_count")
            },
            "components": list(environment.get("components", [])),
            "workload": environment.get("workload"),
        },
        "symptoms": {
            "description": document["symptoms"]["description"],
            "tags": list(document["symptoms"]["tags"]),
            "error_codes": list(document["symptoms"].get("error_codes", [])),
        },
        "scale_tables": tables,
        "root_cause": {
            "category": root_cause["category"],
            "description": root_cause.get("description"),
            "trigger": root_cause.get("trigger"),
        },
        "detection": document.get("detection"),
        **{key: list(document.get(key, [])) for key in ("remediation", "action_items", "lessons", "checks")},
        "sources": [{"title": s.get("title"), "url": s["url"]} for s in document["sources"]],
        "related": list(document.get("related", [])),
        "affected": [normalised_range(item) for item in document.get("affected", [])],
        "references": [normalised_reference(item) for item in document.get("references", [])],
    }
