"""Markdown renderings of a case document and a topic overview, for MCP resources.

Built from `case_document` (the one document builder) and `topic_overview`, so the text an
assistant reads into context says exactly what the API and the pages say. Markdown fields
of the document are included as written.
"""

from __future__ import annotations

from typing import Any

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
    """The whole case as Markdown: headline, facts, every section, sources, related ids."""
    facts, env = document["facts"], document["environment"]
    symptoms, root = document["symptoms"], document["root_cause"]
    lines = [
        f"# {document['id']}: {document['title']}",
        "",
        f"- Organization: {document['organization']}",
        f"- Published: {document['published']}",
        f"- Occurred: {_value(document['occurred'])}",
        f"- Status: {document['status']}",
        f"- Topics: {', '.join(document['topics'])}",
        "",
        *_section("Summary", document["summary"]),
        "## Facts",
        "",
        f"- Severity: {_value(facts['severity'])}",
        f"- Scope: {_value(facts['scope'])}",
        f"- Users affected: {_value(facts['users_affected'])}",
        f"- Region: {_value(facts['region'])}",
        f"- Time to detect: {_value(facts['time_to_detect'])}",
        f"- Time to resolve: {_value(facts['time_to_resolve'])}",
        "",
        "## Environment",
        "",
        f"- Cluster: {_value(env['cluster'])}",
        f"- Accelerator: {_value(env['accelerator'])}",
        f"- Accelerator count: {_value(env['accelerator_count'])}",
        f"- Node count: {_value(env['node_count'])}",
        f"- Components: {', '.join(env['components']) or NOT_KNOWN}",
        f"- Workload: {_value(env.get('workload'))}",
        "",
        "## Symptoms",
        "",
        f"Tags: {', '.join(symptoms['tags']) or 'none'}",
        *([f"Error codes: {', '.join(codes)}"] if (codes := symptoms.get("error_codes")) else []),
        "",
        symptoms["description"],
        "",
    ]
    if document["scale_tables"]:
        lines += ["## Scale observations", ""]
        for table in document["scale_tables"]:
            lines += _scale_table(table)
    lines += [
        "## Root cause",
        "",
        f"Category: {root['category']}",
        "",
        _value(root["description"]),
        "",
        f"Trigger: {_value(root['trigger'])}",
        "",
        *_section("Detection", document["detection"]),
    ]
    for key, title in (
        ("remediation", "Remediation"),
        ("action_items", "Action items"),
        ("lessons", "Lessons"),
        ("checks", "Checks"),
    ):
        lines += _section(title, _items(document[key], numbered=key == "remediation"))  # type: ignore[literal-required]
    sources = [f"- [{s['title'] or s['url']}]({s['url']})" for s in document["sources"]]
    lines += _section("Sources", "\n".join(sources))
    if document["related"]:
        lines += _section("Related cases", _items([f"incident://{i}" for i in document["related"]]))
    if document.get("affected"):
        lines += _section("Affected versions", _items([_range_text(a) for a in document["affected"]]))
    if document.get("references"):
        lines += _section("Upstream references", _items([_reference_text(r) for r in document["references"]]))
    return "\n".join(lines).rstrip() + "\n"


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
