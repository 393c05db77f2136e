"""Markdown from case documents, and search snippets, to safe HTML.

Case text is Markdown as written by editors or importers. Python-Markdown passes raw HTML
through, so its output is sanitised with nh3: scripts, event handlers, styles and
`javascript:` URLs never reach a page as markup.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import markdown as markdown_lib
import nh3

if TYPE_CHECKING:
    from incidents.search.results import Snippet

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
    rendered = markdown_lib.markdown(text, extensions=["extra", "sane_lists"], output_format="html")
    return nh3.clean(
        rendered,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="nofollow noopener",
    )


# Inline code (not <pre> blocks) on pages. Its text was escaped by nh3, so only the markup
# added here appears. A browser breaks `srun --gres=gpu:0` after "--" and, with nothing
# better, long paths anywhere. So a hyphenated word stays whole (`nowrap`), and a word too
# long for a phone line gets break opportunities after its path and key separators.
_INLINE_CODE = re.compile(r"(?<!<pre>)<code>([^<]*)</code>")
_LONG_WORD = 24  # characters: longer words may break, at the separators below
_BREAK_AFTER = re.compile(r"([/.,=:_]|&amp;)(?=[^/.,=:_\s])")


def _code_word(word: str) -> str:
    if len(word) > _LONG_WORD:
        return _BREAK_AFTER.sub(r"\1<wbr>", word)
    if "-" in word:
        return f'<span class="nowrap">{word}</span>'
    return word


def wrap_inline_code(html: str) -> str:
    """Inline `<code>` of sanitised HTML with sensible line breaks: between its words, or
    inside a long word only after `/ . , = : _`; never after a hyphen of a short word."""

    def wrap(match: re.Match[str]) -> str:
        parts = re.split(r"(\s+)", match.group(1))
        return "<code>" + "".join(p if not p or p.isspace() else _code_word(p) for p in parts) + "</code>"

    return _INLINE_CODE.sub(wrap, html)


# The HTML element of each style of a search snippet's segments.
_SNIPPET_TAGS = {"code": "code", "strong": "strong", "em": "em"}


def snippet_html(snippet: Snippet | None) -> str | None:
    """A search snippet as HTML (None when there is none): each segment's text escaped,
    matched ones in `<mark>`, styles as `<code>`, `<strong>`, `<em>`; the only markup is
    what this function writes. The pages show it; the API returns it as `snippet`."""
    if snippet is None:
        return None
    out: list[str] = []
    opened: tuple[str, ...] = ()
    for segment in snippet.segments:
        kept = 0
        while kept < min(len(opened), len(segment.styles)) and opened[kept] == segment.styles[kept]:
            kept += 1
        out.extend(f"</{_SNIPPET_TAGS[style]}>" for style in reversed(opened[kept:]))
        out.extend(f"<{_SNIPPET_TAGS[style]}>" for style in segment.styles[kept:])
        opened = segment.styles
        text = html.escape(segment.text)
        out.append(f"<mark>{text}</mark>" if segment.matched else text)
    out.extend(f"</{_SNIPPET_TAGS[style]}>" for style in reversed(opened))
    return "".join(out)


def as_sentence(text: str | None) -> str:
    """`text` as a sentence to set before another: spaces collapsed and a full stop added
    when it ends in no `.`, `!` or `?` (a retraction reason typed as "Source misread: the
    figure is from a different run" ran into the page's next sentence); "" for none."""
    said = " ".join((text or "").split())
    if said and not said.endswith((".", "!", "?")):
        said += "."
    return said
