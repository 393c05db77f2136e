"""A proposal as a reviewer reads it in the admin: its case rendered as a case, its source
URLs and look-alikes as links, never as the JSON they are stored as.

The case's text goes through the case page's Markdown rendering (`rendering.render_markdown`,
sanitised by nh3); every other value is escaped by the template or by `format_html`. The
case document itself stays one click away, folded, for a reviewer who wants every field.
"""

from __future__ import annotations

import json
from typing import Any

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from incidents.case_facts import case_facts
from incidents.documents import case_document
from incidents.models import Case

# The case's lists of Markdown items, in the case page's order, with their headings.
CASE_LISTS = (
    ("Remediation", "remediation"),
    ("Action items", "action_items"),
    ("Lessons", "lessons"),
    ("Checks", "checks"),
)
# Shown in place of a value that is not there, as the admin shows an empty field.
EMPTY = "-"


def case_html(case_id: str | None) -> SafeString:
    """The case `case_id` (any status) as HTML for the admin: title, status, organization and
    dates, topics, known facts, summary, symptoms, root cause, detection, its lists and
    sources, then its case document as indented JSON in a closed `<details>`. `EMPTY` when
    there is no such case. Five queries (the case, its terms, sources, related links and
    accelerator term)."""
    case = Case.objects.with_document().filter(pk=case_id).first() if case_id else None
    if case is None:
        return SafeString(EMPTY)
    document = json.dumps(case_document(case), indent=2, ensure_ascii=False)
    html = render_to_string(
        "admin/incidents/proposal/case.html",
        {
            "case": case,
            "facts": case_facts(case),
            "lists": [(title, getattr(case, name)) for title, name in CASE_LISTS],
            "document_json": document,
        },
    )
    # The template escapes every value and renders the text through nh3 (`markdown`).
    return mark_safe(html)


def source_links(urls: list[str]) -> SafeString:
    """The proposal's source URLs as a list of links (each checked as http(s) when the
    proposal was received: `forms.ProposalForm.clean_source_urls`); `EMPTY` for none."""
    if not urls:
        return SafeString(EMPTY)
    items = format_html_join(
        "", '<li><a href="{}" rel="nofollow noopener noreferrer">{}</a></li>', ((url, url) for url in urls)
    )
    return format_html('<ul class="proposal-links">{}</ul>', items)


def lookalike_links(lookalikes: list[dict[str, Any]]) -> SafeString:
    """The cases a proposal looked like when sent (`[{"id": ..., "reason": ...}]`), each a
    link to the case in the admin with the reason; `EMPTY` for none."""
    if not lookalikes:
        return SafeString(EMPTY)
    items = format_html_join(
        "",
        '<li><a href="{}">{}</a>: {}</li>',
        (
            (reverse("admin:incidents_case_change", args=[item["id"]]), item["id"], item.get("reason", ""))
            for item in lookalikes
        ),
    )
    return format_html('<ul class="proposal-links">{}</ul>', items)
