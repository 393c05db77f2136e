"""Reads by upstream record: which published cases cite an issue, pull request, paper or page.

A record is named by an alias (`NVIDIA/nccl#1405`, `nccl#1405` for any owner, `arXiv:2407.21783`)
or a URL, compared by `references.reference_key` against the `CaseKey` rows import writes
from each case's `references` and `sources`. The JSON API (`/api/lookup`), the page
(`/refs/`), search (a reference token in a query) and MCP read through here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q

from ..models import Case, CaseKey
from ..references import PARTIAL_ALIAS_RE, normalised_reference, reference_key

# Tokens of a search query that name an upstream record rather than words.
_TOKEN_SPLIT = re.compile(r"\s+")
_LOOKS_LIKE_REFERENCE = re.compile(
    r"^(?:https?://\S+|[\w.-]+/[\w.-]+#\d+|[\w.-]+#\d+|arxiv:\d{4}\.\d{4,5})$", re.I
)


class NotAReference(ValueError):
    """The text is neither an alias (`owner/repo#N`, `repo#N`, `arXiv:NNNN.NNNNN`) nor an
    http(s) URL."""


_OWNER_REPO_ONLY = re.compile(r"^[\w.-]+/[\w.-]+$")


def cut_at_hash(text: str) -> str | None:
    """What to add when `text`, named no record, is `owner/repo` with no number: the `#`
    of an alias typed into a URL unescaped (`curl '/api/lookup?ref=NVIDIA/nccl#1116'`) starts
    the URL's fragment, which never reaches the server, so it received `NVIDIA/nccl`. Says
    to write it `%23` (`write # as %23 in a URL: ref=NVIDIA/nccl%231116`); None otherwise.
    One wording for `/api/lookup` and the `/refs/` page."""
    text = text.strip()
    if not _OWNER_REPO_ONLY.match(text):
        return None
    example = f"ref={text}%23N, such as {text}%231116"
    return f"write # as %23 in a URL ({example}): what follows a bare # is not sent"


def reference_condition(text: str) -> Q:
    """`CaseKey` rows naming the record `text` names (a reference or a source). `repo#N`
    alone matches that issue of any owner. Raises NotAReference."""
    text = text.strip()
    partial = PARTIAL_ALIAS_RE.match(text)
    if partial and "/" not in text:
        return Q(kind__in=_CITING, key__endswith=f"/{partial[1].lower()}#{int(partial[2])}")
    key = reference_key(text)
    if key is None:
        raise NotAReference(text)
    return Q(kind__in=_CITING, key=key)


_CITING = (CaseKey.Kind.REFERENCE, CaseKey.Kind.SOURCE)


def split_reference_tokens(query: str) -> tuple[list[str], str]:
    """(reference tokens, the rest of the query): `NVIDIA/nccl#1405 hang` ->
    (["NVIDIA/nccl#1405"], "hang"). A token counts when `reference_condition` reads it."""
    references, rest = [], []
    for token in _TOKEN_SPLIT.split(query.strip()):
        if token and _LOOKS_LIKE_REFERENCE.match(token):
            try:
                reference_condition(token)
            except NotAReference:
                rest.append(token)
            else:
                references.append(token)
        elif token:
            rest.append(token)
    return references, " ".join(rest)


def citing_cases_condition(tokens: list[str]) -> Q:
    """A `Case` condition: cites any of `tokens` (no query runs here; a subquery)."""
    condition = Q()
    for token in tokens:
        condition |= reference_condition(token)
    return Q(id__in=CaseKey.objects.filter(condition).values("case_id"))


@dataclass(frozen=True)
class UpstreamRecord:
    """What `record_lookup` found for one alias or URL.

    `key` is the normalised record key; `record` the first matching `references[]` item
    of the citing cases (kind, id, url, state, fixed_in), None when only sources cite it;
    `cases` the published citing cases, newest first (fetched `with_summary()`); `via`
    maps each case id to how it cites the record ("reference", "source" or both).
    """

    query: str
    key: str
    record: dict[str, Any] | None
    cases: list[Case]
    via: dict[str, list[str]] = field(default_factory=dict)


def record_lookup(text: str) -> UpstreamRecord:
    """The published cases citing the record `text` names (an alias or a URL).

    Raises NotAReference for text that names no record. Queries: 3 (the keys, the cases,
    their terms).
    """
    condition = reference_condition(text)
    rows = list(CaseKey.objects.filter(condition).values_list("case_id", "kind", "key"))
    via: dict[str, list[str]] = {}
    keys: set[str] = set()
    for case_id, kind, key in rows:
        via.setdefault(case_id, []).append(kind)
        keys.add(key)
    cases = list(Case.objects.published().filter(id__in=list(via)).with_summary().newest_first())
    record = _record_of(cases, keys)
    key = reference_key(text) or (sorted(keys)[0] if keys else text.strip().lower())
    return UpstreamRecord(
        query=text.strip(),
        key=key,
        record=record,
        cases=cases,
        via={case.id: sorted(set(via[case.id])) for case in cases},
    )


def _record_of(cases: list[Case], keys: set[str]) -> dict[str, Any] | None:
    for case in cases:
        for item in case.references:
            if {reference_key(item["url"]), item["id"] and reference_key(item["id"])} & keys:
                return normalised_reference(item)
    return None
