"""Markdown from case documents to safe HTML.

Case text is Markdown as written by editors or importers. Python-Markdown passes raw HTML
through, so its output is sanitised with nh3: scripts, event handlers, styles and
`javascript:` URLs never reach a page as markup.
"""

from __future__ import annotations

import markdown as markdown_lib
import nh3

ALLOWED_TAGS = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "code",
    "dd",
    "del",
    "dl",
    "dt",
    "em",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "li",
    "ol",
    "p",
    "pre",
    "strong",
    "sub",
    "sup",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul",
}
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "td": {"align"}, "th": {"align"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def render_markdown(text: str | None) -> str:
    """Render Markdown (with tables) to sanitised HTML; None or "" gives ""."""
    if not text:
        return ""
    html = markdown_lib.markdown(text, extensions=["extra", "sane_lists"], output_format="html")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="nofollow noopener",
    )
