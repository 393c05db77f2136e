"""Spotting a case that is already in the store: the same source URL, or near-identical text.

Import (as warnings, refused with `--strict`), the admin (a warning after saving and after
its Publish action), the write API (`warnings` of a create, a replace or patch and a
publish) and proposals (before and after sending, on Accept) all ask `find_duplicates` /
`find_lookalikes` / `duplicates_of_case`.
Text closeness is the TF-IDF cosine of the two accounts (title, symptoms, root cause, trigger,
summary: `search.similarity.TextIndex`), not the similar-case score.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from .document_model import value_at
from .documents import case_document
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

    def warning(self, of: str) -> str:
        """The warning every door gives when case `of` looks like this one: "Possible
        duplicate: IL-0700 looks like IL-0450 (same source URL https://...)"."""
        return f"Possible duplicate: {of} looks like {self}"


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


def duplicates_of_case(case_id: str) -> list[Duplicate]:
    """`find_duplicates` of the stored case `case_id` (as its document stands now): what a
    write or a publish of it warns of. Raises Case.DoesNotExist. Queries: the case's document
    (its rows), then those of `find_lookalikes`."""
    return find_duplicates(dict(case_document(Case.objects.with_document().get(id=case_id))))


def batch_duplicates(
    documents: list[dict[str, Any]], *, published: list[Profile] | None = None
) -> dict[str, list[Duplicate]]:
    """For each new document of an import, the stored cases it looks like (by id): the same
    lists `find_duplicates` gives one document, from one `TextIndex`, one source-URL query per
    `BATCH` documents, one sparse text product per block and one query for the titles.
    `published`: every published profile (`search.profiles.published`), when the caller
    read them already; the index reads their accounts otherwise."""
    return batch_duplicates_later(documents, published=published)()


def batch_duplicates_later(
    documents: list[dict[str, Any]],
    *,
    published: list[Profile] | None = None,
    pool: Executor | None = None,
) -> Callable[[], dict[str, list[Duplicate]]]:
    """`batch_duplicates`, in two steps: the source-URL queries now, and a function that
    returns the lists. With `pool` (a second process, `services.second_process`) and
    `published`, the text comparison (tokenising every document's account, the sparse
    products: about a seventh of a first import of 20,000 cases) runs there meanwhile, and
    the titles of every case it can name are read now, so that the lists are those of this
    moment even when the caller writes cases before asking for them. Without either, all
    is done here, before returning."""
    if not documents:
        return dict
    by_url = _url_matches(documents)
    texts = [document_text(document) for document in documents]
    with_text = [i for i, text in enumerate(texts) if text.strip()]
    excludes: list[set[str]] = [{documents[i].get("id")} | by_url[i].keys() for i in with_text]  # type: ignore[misc]
    if pool is None or published is None:
        if published is None and word_statistics.in_use(len(documents), candidate_cases.KEPT):
            index = TextIndex.for_texts(texts)
        else:
            index = TextIndex(published)
        near = index.matches_many(
            [texts[i] for i in with_text], excludes=excludes, min_score=NEAR_IDENTICAL, limit=LIMIT
        )
        found = _named(documents, by_url, with_text, near)
        return lambda: found
    future = pool.submit(_near_matches, published, [texts[i] for i in with_text], excludes)
    candidates = {case_id for found in by_url for case_id in found} | {p.id for p in published}
    titles = _titles(sorted(candidates))

    def finish_later() -> dict[str, list[Duplicate]]:
        return _named(documents, by_url, with_text, future.result(), titles)

    return finish_later


def _near_matches(
    published: list[Profile], texts: list[str], excludes: list[set[str]]
) -> list[list[tuple[str, float]]]:
    """`TextIndex.matches_many` of `texts` against `published` (no queries: run in the
    second process)."""
    return TextIndex(published).matches_many(texts, excludes=excludes, min_score=NEAR_IDENTICAL, limit=LIMIT)


def _url_matches(documents: list[dict[str, Any]]) -> list[dict[str, str]]:
    """For each document, the stored cases (any status but merged; not itself) citing one of
    its source URLs: case id -> "same source URL ...". One query per `BATCH` documents."""
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
    return by_url


def _titles(case_ids: list[str]) -> dict[str, str]:
    """Case id -> title, one query per `BATCH` ids."""
    titles: dict[str, str] = {}
    for start in range(0, len(case_ids), BATCH):
        titles.update(
            Case.objects.filter(id__in=ids_in(case_ids[start : start + BATCH])).values_list("id", "title")
        )
    return titles


def _named(
    documents: list[dict[str, Any]],
    by_url: list[dict[str, str]],
    with_text: list[int],
    near: list[list[tuple[str, float]]],
    titles: dict[str, str] | None = None,
) -> dict[str, list[Duplicate]]:
    """The lists of `batch_duplicates` from the URL matches and the text matches of the
    documents `with_text` (their positions); `titles` read now unless given."""
    for i, matches in zip(with_text, near, strict=True):
        for case_id, score in matches:
            by_url[i].setdefault(case_id, f"near-identical text ({score:.2f})")
    shown = [list(found)[:LIMIT] for found in by_url]
    if titles is None:
        titles = _titles(sorted({case_id for ids in shown for case_id in ids}))
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
