"""Small readers of rendered pages for the web tests (standard library only)."""

from __future__ import annotations

import re
from html import unescape
from html.parser import HTMLParser


def text_of(html: str) -> str:
    """Visible-ish text: tags removed, entities decoded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def element(html: str, tag: str, **attrs: str) -> str:
    """The first `<tag ...attrs>...</tag>` (outer HTML, same-tag nesting handled)."""
    needle = "".join(
        rf'(?=[^>]*\b{k.rstrip("_").replace("_", "-")}="{re.escape(v)}")' for k, v in attrs.items()
    )
    start = re.search(rf"<{tag}\b{needle}[^>]*>", html)
    assert start, f"no <{tag} {attrs}>"
    depth, pos = 0, start.start()
    for m in re.finditer(rf"<(/?){tag}\b[^>]*>", html[pos:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return html[pos : pos + m.end()]
    raise AssertionError(f"unclosed <{tag}>")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._href = dict(attrs).get("href")
            self._text = []

    def handle_data(self, data):
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "a" and self._href is not None:
            self.links.append((unescape(self._href), re.sub(r"\s+", " ", "".join(self._text)).strip()))
            self._href = None


def links(html: str) -> list[tuple[str, str]]:
    """(href, text) of every link, hrefs with entities decoded."""
    parser = _Links()
    parser.feed(html)
    return parser.links


def link_to(html: str, text: str) -> str:
    """The href of the first link whose text contains `text`."""
    for href, label in links(html):
        if text in label:
            return href
    raise AssertionError(f"no link with text {text!r}")


def title_of(html: str) -> str:
    return unescape(re.search(r"<title>(.*?)</title>", html, re.S).group(1)).strip()


def meta_description(html: str) -> str:
    return unescape(re.search(r'<meta name="description" content="([^"]*)">', html).group(1))
