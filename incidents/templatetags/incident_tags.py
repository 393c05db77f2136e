from __future__ import annotations

from django import template
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
