"""Upstream records: the keys that say two citations name the same record.

A case cites upstream records twice over: `references` (issues, pull requests, papers with
an alias such as `NVIDIA/nccl#1405`) and `sources` (the pages it was written from). Lookup
by reference compares *keys*, not strings as written:

- a GitHub issue or pull request, as `owner/repo#N` or as any of its URLs
  (`https://github.com/NVIDIA/nccl/issues/1405`, `.../pull/1405`, with a comment anchor or a
  trailing slash), is `nvidia/nccl#1405` (GitHub names are case-insensitive, and an issue
  and a pull request share one number space);
- an arXiv paper (`arXiv:2407.21783`, `arXiv 2407.21783`, `https://arxiv.org/abs/2407.21783v2`,
  `.../pdf/2407.21783`) is `arxiv:2407.21783` (versions dropped);
- any other URL is itself with the scheme and `www.` dropped, host in lower case, without
  its fragment or trailing slash (`example.org/blog/post`).

`reference_key` computes a key; `case_keys` lists a document's keys for `CaseKey` rows.
Every URL is read through `split_url`, which never raises: text `urlsplit` refuses (an
unclosed `[`, a port that is not a number from 0 to 65535) is not a URL, so it names no
record (search reads it as words, lookup answers 400 naming the parameter).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import SplitResult, urlsplit

# owner/repo#N as people write it; `repo#N` alone (`nccl#1405`) is a partial alias.
ALIAS_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]{0,38})/([A-Za-z0-9._-]{1,100})#([0-9]{1,9})$")
PARTIAL_ALIAS_RE = re.compile(r"^([A-Za-z0-9._-]{1,100})#([0-9]{1,9})$")
_GITHUB_PATH_RE = re.compile(r"^/([^/]+)/([^/]+)/(?:issues|pull|pulls)/([0-9]{1,9})(?:/.*)?$")
_ARXIV_ID_RE = re.compile(r"^arxiv[: ]\s*([0-9]{4}\.[0-9]{4,5})(?:v[0-9]+)?$", re.IGNORECASE)
_ARXIV_PATH_RE = re.compile(r"^/(?:abs|pdf|html)/([0-9]{4}\.[0-9]{4,5})(?:v[0-9]+)?(?:\.pdf)?/?$")


def split_url(text: str) -> SplitResult | None:
    """`urlsplit(text.strip())`, or None for text it cannot read as a URL: an unclosed `[`
    (ValueError from urlsplit) or a port that is not a number from 0 to 65535 (ValueError
    from `.port`, read here so no caller meets it later)."""
    try:
        parts = urlsplit(text.strip())
        parts.port  # noqa: B018 - raises for a malformed port
    except ValueError:
        return None
    return parts


def github_alias(url: str) -> str | None:
    """`owner/repo#N` for a GitHub issue or pull-request URL (as written), else None."""
    parts = split_url(url)
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or parts.hostname not in ("github.com", "www.github.com")
    ):
        return None
    match = _GITHUB_PATH_RE.match(parts.path)
    return f"{match[1]}/{match[2]}#{int(match[3])}" if match else None


def arxiv_alias(text: str) -> str | None:
    """`arXiv:2407.21783` for an arXiv id or abs/pdf URL, else None."""
    text = text.strip()
    match = _ARXIV_ID_RE.match(text)
    if match:
        return f"arXiv:{match[1]}"
    parts = split_url(text)
    if parts is not None and parts.hostname in ("arxiv.org", "www.arxiv.org", "export.arxiv.org"):
        match = _ARXIV_PATH_RE.match(parts.path)
        if match:
            return f"arXiv:{match[1]}"
    return None


def alias_of_url(url: str) -> str | None:
    """The short alias a reference URL implies (GitHub issue/PR or arXiv), else None."""
    return github_alias(url) or arxiv_alias(url)


def reference_key(text: str) -> str | None:
    """The lookup key of an alias or URL (see the module docstring); None when `text` is
    neither an alias nor an http(s) URL (a malformed one included). Never raises."""
    text = text.strip()
    match = ALIAS_RE.match(text)
    if match:
        return f"{match[1]}/{match[2]}#{int(match[3])}".lower()
    alias = alias_of_url(text)
    if alias is not None:
        return reference_key(alias) if "#" in alias else alias.lower()
    parts = split_url(text)
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.removeprefix("www.")
    port = f":{parts.port}" if parts.port else ""
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{port}{path}{query}"[:500]


def normalised_reference(reference: dict[str, Any]) -> dict[str, Any]:
    """A `references[]` item spelled out in schema order, `id` filled from a GitHub issue or
    pull-request URL or an arXiv URL when the document gives none."""
    url = reference["url"]
    return {
        "kind": reference["kind"],
        "id": reference.get("id") or alias_of_url(url),
        "url": url,
        "state": reference.get("state"),
        "fixed_in": reference.get("fixed_in"),
    }


def case_keys(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(kind, key) of every upstream record a document cites: `references` by id and url,
    `sources` by url; each pair once, in document order."""
    found: dict[tuple[str, str], None] = {}
    for reference in document.get("references", []):
        for text in (reference.get("id"), reference["url"]):
            if text and (key := reference_key(text)):
                found[("reference", key)] = None
    for source in document["sources"]:
        if key := reference_key(source["url"]):
            found[("source", key)] = None
    return list(found)
