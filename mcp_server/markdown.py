"""Markdown renderings of a case document and a topic overview, for MCP resources.

Built from `case_document` (the one document builder) and `topic_overview`, so the text an
assistant reads into context says exactly what the API and the pages say. Markdown fields
of the document are included as written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from incidents.document_model import CaseModel, case_model, humanize
from incidents.documents import CaseDocument
from incidents.selectors import TopicOverview

NOT_KNOWN = "not known"


def _value(value: Any) -> str:
    return NOT_KNOWN if value is None or value == "" else str(value)


def _cell(value: Any) -> str:
    text = "" if value is None else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def _section(title: str, body: str | None) -> list[str]:
    return [f"## {title}", "", body if body else NOT_KNOWN.capitalize() + ".", ""]


def _items(values: list[str], *, numbered: bool = False) -> str:
    return "\n".join(f"{i}. {v}" if numbered else f"- {v}" for i, v in enumerate(values, 1))


def _scale_table(table: dict[str, Any]) -> list[str]:
    columns = table["columns"]
    headers = [c["label"] + (f" ({c['unit']})" if c["unit"] else "") for c in columns]
    lines = [
        f"### {table['caption']}",
        "",
        "| " + " | ".join(_cell(h) for h in [*headers, "Outcome", "Note"]) + " |",
        "|" + "---|" * (len(headers) + 2),
    ]
    for row in table["rows"]:
        values = [row["values"].get(c["key"]) for c in columns]
        lines.append("| " + " | ".join(_cell(v) for v in [*values, row["outcome"], row["note"]]) + " |")
    return [*lines, ""]


def case_markdown(document: CaseDocument) -> str:
    """The whole case as Markdown: the headline, then every field of the document model in
    schema order (labels from the model): scalars and term lists as bullets, objects as a
    section of bullets, text and lists of text as sections; a few fields have their own form
    (`SECTIONS`)."""
    model = case_model()
    lines = [f"# {document['id']}: {document['title']}", ""]
    bullets: list[str] = []
    for name in model.top_level:
        if name in ("id", "title"):
            continue
        value = document.get(name)
        if name not in SECTIONS and not model.children(name) and _is_bullet(model, name):
            bullets.append(f"- {model.binding(name).title}: {_bullet_value(value)}")
            continue
        if bullets:
            lines += [*bullets, ""]
            bullets = []
        if name in SECTIONS:
            lines += SECTIONS[name](document)
        elif children := model.children(name):
            lines += [f"## {humanize(name)}", ""]
            given = value or {}
            lines += [f"- {b.title}: {_bullet_value(given.get(f.name))}" for f, b in children]
            lines.append("")
        elif isinstance(value, list):
            lines += _section(model.binding(name).title, _items(value, numbered=name in NUMBERED))
        else:
            lines += _section(model.binding(name).title, value)
    lines += bullets
    return "\n".join(lines).rstrip() + "\n"


# Steps in order: a numbered list.
NUMBERED = frozenset({"remediation"})


def _is_bullet(model: CaseModel, name: str) -> bool:
    """A one-line field: a scalar that is not Markdown text, or a list of vocabulary terms."""
    binding = model.binding(name)
    if model.is_list(name):
        return binding.facet is not None
    return not model.field(name).node.get("description", "").startswith("Markdown")


def _bullet_value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or NOT_KNOWN
    return _value(value)


def _symptoms(document: CaseDocument) -> list[str]:
    symptoms = document["symptoms"]
    return [
        "## Symptoms",
        "",
        f"Tags: {', '.join(symptoms['tags']) or 'none'}",
        *([f"Error codes: {', '.join(codes)}"] if (codes := symptoms.get("error_codes")) else []),
        "",
        symptoms["description"],
        "",
    ]


def _scale_tables(document: CaseDocument) -> list[str]:
    if not document["scale_tables"]:
        return []
    lines = [f"## {case_model().binding('scale_tables').title}", ""]
    for table in document["scale_tables"]:
        lines += _scale_table(table)
    return lines


def _root_cause(document: CaseDocument) -> list[str]:
    root = document["root_cause"]
    return [
        "## Root cause",
        "",
        f"Category: {root['category']}",
        "",
        _value(root["description"]),
        "",
        f"Trigger: {_value(root['trigger'])}",
        "",
    ]


def _sources(document: CaseDocument) -> list[str]:
    sources = [f"- [{s['title'] or s['url']}]({s['url']})" for s in document["sources"]]
    return _section("Sources", "\n".join(sources))


def _listed(name: str, render: Callable[[Any], str]) -> Callable[[CaseDocument], list[str]]:
    """A list field as a section of items, left out when empty."""

    def section(document: CaseDocument) -> list[str]:
        values = document.get(name)
        if not values:
            return []
        return _section(case_model().binding(name).title, _items([render(v) for v in values]))

    return section


def _related_text(case_id: str) -> str:
    return f"incident://{case_id}"


def _range_text(item: dict) -> str:
    """ "NCCL: 2.19.1, 2.19.3; introduced 2.19.1; fixed 2.20.3" """
    parts = [", ".join(item["versions"])] if item["versions"] else []
    parts += [
        f"{key.replace('_', ' ')} {item[key]}"
        for key in ("introduced", "fixed", "last_affected")
        if item[key]
    ]
    return f"{item['component']}: {'; '.join(parts) or 'versions not stated'}"


def _reference_text(item: dict) -> str:
    """ "issue NVIDIA/nccl#1116 (closed, fixed in 2.20.3): <url>" """
    state = ", ".join(filter(None, [item["state"], item["fixed_in"] and f"fixed in {item['fixed_in']}"]))
    label = item["id"] or item["url"]
    return f"{item['kind'].replace('_', ' ')} [{label}]({item['url']})" + (f" ({state})" if state else "")


# Fields with a form of their own.
SECTIONS: dict[str, Callable[[CaseDocument], list[str]]] = {
    "symptoms": _symptoms,
    "scale_tables": _scale_tables,
    "root_cause": _root_cause,
    "sources": _sources,
    "related": _listed("related", _related_text),
    "affected": _listed("affected", _range_text),
    "references": _listed("references", _reference_text),
}


def topic_markdown(overview: TopicOverview) -> str:
    """A topic: description, synonyms, case count, frequent terms, latest cases."""
    topic = overview.topic
    lines = [
        f"# Topic: {topic.name} ({topic.slug})",
        "",
        topic.description,
        "",
        f"Synonyms: {', '.join(topic.synonyms) or 'none'}",
        "",
        f"Published cases: {overview.case_count}",
        "",
    ]
    for title, pairs in (
        ("Frequent symptoms", overview.top_symptoms),
        ("Frequent root causes", overview.top_root_causes),
        ("Frequent components", overview.top_components),
    ):
        lines += _section(title, _items([f"{term.name} ({count})" for term, count in pairs]) or "None.")
    latest = [
        f"[{c.id}](incident://{c.id}) {c.title} ({c.organization}, {c.published.isoformat()})"
        for c in overview.latest_cases
    ]
    lines += _section("Latest cases", _items(latest) or "None.")
    return "\n".join(lines).rstrip() + "\n"
