"""Spotting a case that is already in the store: the same source URL, or near-identical text.

Import (as warnings, refused with `--strict`), the admin (a warning after saving) and
proposals (before and after sending) all ask `find_duplicates` / `find_lookalikes`.
Text closeness is the TF-IDF cosine of the two accounts (title, symptoms, root cause, trigger,
summary: `search.similarity.TextIndex`), not the similar-case score.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .document_model import value_at
from .id_lists import ids_in
from .models import Case, Source
from .references import split_url
from .search import candidate_cases, word_statistics
from .search.profiles import ACCOUNT_PATHS, Profile
from .search.similarity import TextIndex, current_text_index

# Text score from which two texts read as the same account. Measured on the 36 demo cases:
# distinct cases score at most 0.30 against each other; a case's title with its summary
# scores 0.88 against the case, its title with half the summary 0.68. On the 141 reviewed
# cases distinct ones reach 0.47 (IL-0489 and IL-0490, two FlashAttention backward races).
NEAR_IDENTICAL = 0.6


@dataclass(frozen=True)
class Duplicate:
    """An existing case that looks like the one being written, and why."""

    case_id: str
    title: str
    reason: str  # "same source URL https://..." or "near-identical text (0.93)"

    def __str__(self) -> str:
        return f"{self.case_id} ({self.reason})"


def url_variants(url: str) -> list[str]:
    """Spellings of one URL that point at the same page: http/https, with or without `www.`
    and a trailing slash, without the fragment; none for text that is not a URL (a
    malformed one included)."""
    parts = split_url(url)
    if parts is None or not parts.netloc:
        return []
    host = parts.netloc.lower().removeprefix("www.")
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return [
        f"{scheme}://{prefix}{host}{path}{slash}{query}"
        for scheme in ("https", "http")
        for prefix in ("", "www.")
        for slash in ("", "/")
    ]


def find_lookalikes(
    *,
    urls: Iterable[str] = (),
    text: str = "",
    exclude: Iterable[str] = (),
    limit: int = 5,
    index: TextIndex | None = None,
) -> list[Duplicate]:
    """Existing cases (any status but merged) citing one of `urls`, then published cases whose
    text is near-identical to `text`; each case once, at most `limit`.

    Queries: one for the URLs, one for the titles, and when `text` is given the store's
    `TextIndex` unless one is passed: kept in each process until the next write
    (`current_text_index`; one cache read, plus 2 queries to build it after a write).
    """
    skip = set(exclude)
    found: dict[str, str] = {}
    variants = {variant: url for url in urls for variant in url_variants(url)}
    if variants:
        rows = (
            Source.objects.filter(url__in=list(variants))
            .exclude(case__status=Case.Status.MERGED)
            .order_by("case_id", "position")
            .values_list("case_id", "url")
        )
        for case_id, url in rows:
            if case_id not in skip:
                found.setdefault(case_id, f"same source URL {url}")
    if text.strip():
        index = index or current_text_index()
        near = index.matches(text, exclude=skip | found.keys(), min_score=NEAR_IDENTICAL, limit=limit)
        for case_id, score in near:
            found.setdefault(case_id, f"near-identical text ({score:.2f})")
    ids = list(found)[:limit]
    titles = dict(Case.objects.filter(id__in=ids).values_list("id", "title"))
    return [Duplicate(case_id, titles.get(case_id, ""), found[case_id]) for case_id in ids]


def document_text(document: dict[str, Any]) -> str:
    """The account of a case document, the text a duplicate check compares (as the stored
    profiles' `counts`): its `profiles.ACCOUNT_PATHS` that hold text, one per line."""
    parts = (value_at(document, path) for path in ACCOUNT_PATHS)
    return "\n".join(p for p in parts if isinstance(p, str))


def find_duplicates(document: dict[str, Any], *, index: TextIndex | None = None) -> list[Duplicate]:
    """Other cases that look like this case document (its own id excluded)."""
    urls = [s["url"] for s in document.get("sources", []) if isinstance(s, dict) and s.get("url")]
    own = [document["id"]] if document.get("id") else []
    return find_lookalikes(urls=urls, text=document_text(document), exclude=own, index=index)


def batch_duplicates(
    documents: list[dict[str, Any]], *, published: list[Profile] | None = None
) -> dict[str, list[Duplicate]]:
    """For each new document of an import, the stored cases it looks like (by id): the same
    lists `find_duplicates` gives one document, from one `TextIndex`, one source-URL query per
    `BATCH` documents, one sparse text product per block and one query for the titles.
    `published`: every published profile (`search.profiles.published`), when the caller
    read them already; the index reads their accounts otherwise."""
    if not documents:
        return {}
    if published is None and word_statistics.in_use(len(documents), candidate_cases.KEPT):
        index = TextIndex.for_texts([document_text(document) for document in documents])
    else:
        index = TextIndex(published)
    by_url: list[dict[str, str]] = []
    for start in range(0, len(documents), BATCH):
        block = documents[start : start + BATCH]
        variants = [
            {variant: url for url in _urls(document) for variant in url_variants(url)} for document in block
        ]
        citing: dict[str, list[tuple[str, int, str]]] = {}
        wanted = sorted({variant for found in variants for variant in found})
        rows = (
            Source.objects.filter(url__in=ids_in(wanted))
            .exclude(case__status=Case.Status.MERGED)
            .values_list("case_id", "position", "url")
        )
        for case_id, position, url in rows:
            citing.setdefault(url, []).append((case_id, position, url))
        for document, found_variants in zip(block, variants, strict=True):
            own = document.get("id")
            hits = sorted(hit for variant in found_variants for hit in citing.get(variant, ()))
            found: dict[str, str] = {}
            for case_id, _, url in hits:
                if case_id != own:
                    found.setdefault(case_id, f"same source URL {url}")
            by_url.append(found)
    texts = [document_text(document) for document in documents]
    with_text = [i for i, text in enumerate(texts) if text.strip()]
    near = index.matches_many(
        [texts[i] for i in with_text],
        excludes=[{documents[i].get("id")} | by_url[i].keys() for i in with_text],  # type: ignore[misc]
        min_score=NEAR_IDENTICAL,
        limit=LIMIT,
    )
    for i, matches in zip(with_text, near, strict=True):
        for case_id, score in matches:
            by_url[i].setdefault(case_id, f"near-identical text ({score:.2f})")
    shown = [list(found)[:LIMIT] for found in by_url]
    every = sorted({case_id for ids in shown for case_id in ids})
    titles: dict[str, str] = {}
    for start in range(0, len(every), BATCH):
        titles.update(
            Case.objects.filter(id__in=ids_in(every[start : start + BATCH])).values_list("id", "title")
        )
    return {
        document["id"]: [Duplicate(case_id, titles.get(case_id, ""), found[case_id]) for case_id in ids]
        for document, found, ids in zip(documents, by_url, shown, strict=True)
        if ids
    }


# Documents whose source URLs are looked up in one query.
BATCH = 500
LIMIT = 5  # lookalikes named per document, as `find_lookalikes`


def _urls(document: dict[str, Any]) -> list[str]:
    return [s["url"] for s in document.get("sources", []) if isinstance(s, dict) and s.get("url")]
