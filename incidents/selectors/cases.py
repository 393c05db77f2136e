"""Reads of cases: one case by id, lists for pages and feeds, the change feed and export.

Every function costs a fixed number of queries whatever the number of cases (stated in
each docstring); pages, the API and the MCP tools call these and never build queries.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet, prefetch_related_objects

from .. import history, store_cache
from ..documents import CaseDocument, case_document
from ..exporting import iter_documents
from ..models import Case, CaseQuerySet, Term, related_links_prefetch
from .spelling import normalize_case_id


def case_by_id(case_id: str) -> Case | None:
    """A published or retracted case with everything its document needs, or None; with
    `content_changed`, when its content last changed (`history.content_changed`, None for a
    case without history), which its page says.

    Costs a fixed 7 queries (case with root cause, then prefetches of term links, sources,
    scale tables, their columns and rows, related links); 1 when there is no such case.
    Whether other cases were merged into it comes with the case (`has_merged_from`), so
    `merged_from` costs nothing for the many that have none.
    """
    return (
        Case.objects.visible()
        .with_document()
        .annotate(
            content_changed=history.content_changed(),
            has_merged_from=Exists(
                Case.objects.filter(merged_into_id=OuterRef("pk"), status=Case.Status.MERGED)
            ),
        )
        .filter(id=case_id)
        .first()
    )


def stored_case_id(case_id: str) -> str | None:
    """The stored id of the case of any status that `case_id` spells (`IL-428`, `il0428` ->
    `IL-0428`), None when there is none. One query. For the writes, which take an id as
    stored (`GET` redirects another spelling; a write says which id is meant)."""
    wanted = normalize_case_id(case_id)
    return Case.objects.filter(id__iexact=wanted).values_list("id", flat=True).first()


def merged_from(case: Case) -> list[str]:
    """Ids of the cases merged into `case` (duplicates it was kept over), sorted; empty for
    most. No query for a case `case_by_id` read whose `has_merged_from` is false, else one."""
    if not getattr(case, "has_merged_from", True):
        return []
    return list(
        Case.objects.filter(merged_into_id=case.id, status=Case.Status.MERGED)
        .order_by("id")
        .values_list("id", flat=True)
    )


def visible_case_ids() -> list[str]:
    """Ids of published and retracted cases (the ones that resolve by id), sorted. One query."""
    return list(Case.objects.visible().order_by("id").values_list("id", flat=True))


def published_case_ids() -> list[str]:
    """Ids of published cases, sorted: the ids "closest ids" suggest (a retracted case's or a
    merged-away id would send the reader to a withdrawn page or a redirect). One query."""
    return list(Case.objects.published().order_by("id").values_list("id", flat=True))


def resolve_case_id(case_id: str) -> str | None:
    """The stored spelling of a visible case's id (`il-0428` -> `IL-0428`) or, for an id
    merged into another case, the kept case's id; None when neither. One query."""
    row = (
        Case.objects.filter(id__iexact=case_id, status__in=[*Case.PUBLIC_STATUSES, Case.Status.MERGED])
        .values_list("id", "status", "merged_into_id")
        .first()
    )
    if row is None:
        return None
    stored, status, kept = row
    return kept if status == Case.Status.MERGED else stored


def visible_case_exists(case_id: str) -> bool:
    """Whether a published or retracted case has exactly this id: one indexed query."""
    return Case.objects.visible().filter(id=case_id).exists()


def visible_case_modified(case_id: str) -> datetime.datetime | None:
    """`Case.modified` of the published or retracted case with exactly this id (None when
    there is none): the case's own version, which every write of it moves (its document,
    its links, its status, a merge into it, a re-derived error code), whatever other cases
    do. One indexed query, kept per store generation (`store_cache.cached`)."""

    def read() -> datetime.datetime | None:
        return Case.objects.visible().filter(id=case_id).values_list("modified", flat=True).first()

    return store_cache.cached(f"case-modified:{case_id}", read)


def _shown_links(case: Case) -> dict[str, Case]:
    """Each stored hand-made link of `case` that readers are shown (target id -> the case
    shown for it), in the editor's order: a published target as linked, a merged one as
    the case it was merged into when that is published, never `case` itself. Retracted,
    draft and in-review targets are not shown. No query once prefetched as `with_document`
    does (each link's target and the target's kept case)."""
    shown: dict[str, Case] = {}
    for link in case.related_links.all():
        target = link.target
        if target.status == Case.Status.MERGED and target.merged_into is not None:
            target = target.merged_into
        if target.status == Case.Status.PUBLISHED and target.id != case.id:
            shown[link.target_id] = target
    return shown


def related_cases(case: Case) -> list[Case]:
    """The hand-linked related cases a reader is shown (`_shown_links`), each once, in the
    editor's order. No query (see `_shown_links`).

    The stored links stay as the editor made them (`case_document`, `export_cases` and a
    backup carry them all; an editor may un-retract a case), so only what is shown is
    filtered: the case page, `published_document` (API, MCP, `/api/export`) and MCP
    `similar_incidents`.
    """
    return list({target.id: target for target in _shown_links(case).values()}.values())


def related_case_ids(case: Case) -> set[str]:
    """The ids `related_cases` shows for `case` (`_shown_links`' rule: a merged target as its
    kept case). No query when `case` was read with `with_document` (as the case page, the API
    and MCP read it); otherwise one, fetching its links as `with_document` does."""
    prefetch_related_objects([case], related_links_prefetch())  # skips links already fetched
    return {other.id for other in related_cases(case)}


def related_to_store(case: Case, sent: list[str]) -> list[str]:
    """The `related` a write stores when it sends `sent` over `case`. A client builds `sent`
    from what readers are shown (`related_cases`: GET, then PUT, or a PATCH setting the
    list), so: a stored link readers are not shown is kept, as it could not have been
    removed on purpose (the admin removes it); a merged case's kept case in `sent` stands
    for the stored link to the merged case, which stays as the editor made it; every other
    id is as sent. With `sent` what readers are shown, the stored links stay as they are.
    No query (see `_shown_links`)."""
    stored = [link.target_id for link in case.related_links.all()]
    shown_as = {link: target.id for link, target in _shown_links(case).items()}
    if list(dict.fromkeys(shown_as.values())) == sent:
        return stored  # what readers are shown, sent back unchanged
    result: list[str] = []
    for case_id in sent:
        standing_for = [link for link in stored if shown_as.get(link) == case_id and link != case_id]
        own = [case_id] if case_id in stored or not standing_for else []
        result.extend(own + standing_for)
    result.extend(link for link in stored if link not in shown_as)  # hidden from readers
    return list(dict.fromkeys(result))


def published_document(case: Case) -> CaseDocument:
    """`case`'s schema document as published answers serve it (the API's case detail and
    `/api/export`, MCP `get_incident` and `incident://`): `case_document` with `related`
    as `related_cases` lists it, so every id in it is a published case and an export of
    the published cases imports into an empty database. No query when prefetched as
    `with_document` does."""
    return {**case_document(case), "related": [other.id for other in related_cases(case)]}


def cases_with_term(term: Term) -> CaseQuerySet:
    """Published cases that use `term` (any facet, the root cause included), unevaluated."""
    return Case.objects.published().filter(term_links__term=term)


def latest_cases(*, limit: int = 5) -> list[Case]:
    """The `limit` newest published cases, prefetched for case cards (3 queries)."""
    return list(Case.objects.published().newest_first().with_summary()[:limit])


def feed_cases(term: Term | None = None, *, limit: int = 50) -> list[Case]:
    """The published cases most recently added to the library (`Case.added`, whatever their
    sources' dates) for an Atom feed, all or those using `term` (3 queries)."""
    cases = cases_with_term(term) if term is not None else Case.objects.published()
    return list(cases.latest_added().with_summary()[:limit])


def sitemap_cases() -> CaseQuerySet:
    """Published cases for the sitemap, with only what the sitemap reads (id, modified)."""
    return Case.objects.published().only("id", "modified").order_by("id")


def case_changes(*, since: datetime.datetime | None = None) -> QuerySet[Case, Any]:
    """Visible cases modified after `since` (exclusive), newest first, as
    `{"id", "status", "modified"}` rows; all visible cases when `since` is None.

    Drafts and cases in review never appear (they were never public); a retraction shows as
    a change with status "retracted", a merge as status "merged" with `merged_into` (the
    kept case changes too). Ordered by `-modified, -id` so that a cursor can page through it.
    """
    rows = Case.objects.filter(status__in=[*Case.PUBLIC_STATUSES, Case.Status.MERGED])
    if since is not None:
        rows = rows.filter(modified__gt=since)
    return rows.order_by("-modified", "-id").values("id", "status", "modified", "merged_into")


def published_documents() -> Iterator[CaseDocument]:
    """Schema documents of every published case in id order, read a batch at a time.

    Built by `published_document`: the documents `export_cases` writes, but with `related`
    naming only published cases (a merged one as its kept case), so that the stream imports
    into an empty database on its own. Memory stays bounded by one batch.
    """
    return iter_documents(Case.objects.published(), build=published_document)
