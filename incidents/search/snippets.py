"""From a backend's marked passage to a `Snippet`: plain-text segments, matched or not.

The backends cut passages with the database's own function (FTS5 `snippet()`, PostgreSQL
`ts_headline`) and mark the matches with two private-use characters (`text.MARK_START`,
`text.MARK_END`) instead of HTML tags: case text never holds them (`text.clean` strips them
on the way into the index), so splitting on them needs no escaping and no HTML is parsed.

A passage is case text, which is Markdown: `code`, **strong** and *em* become segment
styles. It is cut from the middle of a text, so a code span may have lost either half, at
either end; an even count of backticks does not say which ones open (a passage starting
inside one span and ending inside another would show its prose as code). So the backends
pass each passage through `balance_code_spans` with the text it was cut from: where it
starts in that text says whether it starts inside a code span, and a span cut at either
end is closed at the cut. A passage without its text (or not found in it) falls back on
guessing: an unpaired backtick is dropped. Unpaired `**` are dropped rather than shown,
and emphasis is only looked for outside code spans (a `**` never cuts through code).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .results import Snippet, SnippetSegment, SnippetStyle
from .text import MARK_END, MARK_START, ZWSP

_CODE_RE = re.compile(r"`([^`]+)`")
_STRONG_RE = re.compile(r"\*\*([^*`]+)\*\*")
_EMPHASIS_RE = re.compile(r"(?<![\w*])\*([^*`\s][^*`]*[^*`\s]|[^*`\s])\*(?![\w*])")

# While a passage is read, where each style opens and closes: control characters, which
# `text.clean` also strips from indexed text (and `parse_snippet` from the passage), so
# they are never text. They are neither word characters nor `*` nor space for the
# regexes above, as the HTML tags that stood here before were not.
_OPEN: dict[SnippetStyle, str] = {"code": "\x01", "strong": "\x03", "em": "\x05"}
_CLOSE: dict[SnippetStyle, str] = {"code": "\x02", "strong": "\x04", "em": "\x06"}
_STYLE_OF = {char: style for style, char in (*_OPEN.items(), *_CLOSE.items())}
_PLACEHOLDERS = str.maketrans(dict.fromkeys(_STYLE_OF, " "))


ELLIPSIS = "…"  # what SQLite's snippet() puts where it cut a text


def balance_code_spans(passage: str, sources: Sequence[str], *, delimiter: str | None = None) -> str:
    """`passage` (a backend's, marked) with every code span it cuts closed at the cut: a
    backtick put before a fragment that starts inside a span and after one that ends
    inside one (or, when the cut falls just beside the span's own backtick, that backtick
    dropped). `sources` are the texts the passage may be cut from (the index columns), in
    the order to look; `delimiter` separates fragments cut from different places (a
    PostgreSQL headline's " … "). Where a fragment starts is found by its text, and whether
    that is inside a span by the backticks before it on its line (a case's Markdown keeps
    each code span on one line). A fragment found in no source is left as it is."""
    fragments = passage.split(delimiter) if delimiter else [passage]
    return (delimiter or "").join(_balanced(fragment, sources) for fragment in fragments)


def _balanced(fragment: str, sources: Sequence[str]) -> str:
    lead = ELLIPSIS if fragment.startswith(ELLIPSIS) else ""
    trail = ELLIPSIS if fragment.endswith(ELLIPSIS) and len(fragment) > len(lead) else ""
    body = fragment[len(lead) : len(fragment) - len(trail)]
    plain = body.replace(MARK_START, "").replace(MARK_END, "")
    if "`" not in plain:
        return fragment
    for source in sources:
        at = source.find(plain)
        if at >= 0:
            break
    else:
        return fragment
    opens_inside = source.count("`", source.rfind("\n", 0, at) + 1, at) % 2 == 1
    ends_inside = (opens_inside + plain.count("`")) % 2 == 1
    if opens_inside:
        body = body[1:] if body.startswith("`") else "`" + body
    if ends_inside:
        body = body[:-1] if body.endswith("`") else body + "`"
    return lead + body + trail


def _pair_backticks(text: str) -> str:
    """With an odd number of backticks, drop the one whose partner was cut off: the first
    if it closes a span (the snippet starts inside code), else the last."""
    if text.count("`") % 2 == 0:
        return text
    first = text.index("`")
    before = text[first - 1] if first else " "
    after = text[first + 1] if first + 1 < len(text) else " "
    closes = not before.isspace() and (after.isspace() or not after.isalnum())
    at = first if closes else text.rindex("`")
    return text[:at] + text[at + 1 :]


def _placed(text: str) -> str:
    """`text` with its inline Markdown replaced by the style placeholders."""
    parts = _CODE_RE.split(text)  # even indexes: prose; odd: inside a code span
    out = []
    for index, part in enumerate(parts):
        if index % 2:
            out.append(f"{_OPEN['code']}{part}{_CLOSE['code']}")
            continue
        part = _STRONG_RE.sub(rf"{_OPEN['strong']}\1{_CLOSE['strong']}", part)
        part = _EMPHASIS_RE.sub(rf"{_OPEN['em']}\1{_CLOSE['em']}", part)
        out.append(part.replace("`", "").replace("**", ""))
    return "".join(out)


def parse_snippet(raw: str | None) -> Snippet | None:
    """The `Snippet` of a backend passage (None when there is none): whitespace collapsed,
    inline Markdown as styles, the marked matches as matched segments."""
    if not raw:
        return None
    text = " ".join(raw.replace(ZWSP, "").translate(_PLACEHOLDERS).split())
    segments: list[SnippetSegment] = []
    styles: list[SnippetStyle] = []
    matched = False
    start = 0
    placed = _placed(_pair_backticks(text))
    for at, char in enumerate(placed):
        if char not in _STYLE_OF and char not in (MARK_START, MARK_END):
            continue
        if at > start:
            segments.append(SnippetSegment(placed[start:at], matched=matched, styles=tuple(styles)))
        start = at + 1
        if char == MARK_START:
            matched = True
        elif char == MARK_END:
            matched = False
        elif char == _OPEN[_STYLE_OF[char]]:
            styles.append(_STYLE_OF[char])
        else:  # a close: placeholders come in nested pairs
            del styles[len(styles) - 1 - styles[::-1].index(_STYLE_OF[char])]
    if start < len(placed):
        segments.append(SnippetSegment(placed[start:], matched=matched, styles=tuple(styles)))
    return Snippet(tuple(segments)) if segments else None
