from __future__ import annotations

import nh3
from django import template
from django.utils.html import escape
from django.utils.safestring import mark_safe

from incidents.durations import humanize_duration
from incidents.rendering import render_markdown

register = template.Library()


@register.filter(name="markdown")
def markdown_filter(text: str | None) -> str:
    """Sanitised HTML of a Markdown field (safe to output unescaped)."""
    return mark_safe(render_markdown(text))  # noqa: S308 - nh3 has sanitised it


@register.filter
def duration(value: str | None) -> str | None:
    return humanize_duration(value)


@register.inclusion_tag("incidents/_known.html")
def known(value: object) -> dict[str, object]:
    """Show a fact, or "not known" when it is null."""
    return {"value": value}


@register.filter
def snippet(html: str | None) -> str:
    """A search snippet as HTML: only `<mark>`, `<code>`, `<strong>` and `<em>` survive,
    everything else is escaped text."""
    if not html:
        return ""
    return mark_safe(nh3.clean(html, tags={"mark", "code", "strong", "em"}, attributes={}))  # noqa: S308


@register.filter
def percent(score: float | None) -> str:
    """0..1 score as a whole percentage (`0.4271` -> `43%`)."""
    if score is None:
        return ""
    return f"{round(score * 100)}%"


@register.filter
def highlight(line: str, spans) -> str:
    """`line` as HTML with each `[start, end)` of `spans` in `<mark>`, the rest escaped."""
    out: list[str] = []
    at = 0
    for start, end in spans or ():
        if start < at:
            continue
        out.append(escape(line[at:start]))
        out.append(f"<mark>{escape(line[start:end])}</mark>")
        at = end
    out.append(escape(line[at:]))
    return mark_safe("".join(out))  # noqa: S308 - every piece of text is escaped above
