"""One case's document by its exact id, from the store cache when it is on.

The case JSON (`GET /api/cases/{id}`) and MCP `get_incident` build the same schema document
from a case and its prefetches (`record_of`): 7 queries and the document's assembly, for an
answer that only a write changes. The API keeps its whole answer in the shared cache
(`api.http.conditional_on_store(keep=True)`); MCP `get_incident` reads the record through
`case_record`, which with `settings.STORE_CACHE` keeps it per store generation
(`store_cache.cached`: two cache reads and no query on a hit). Every write service starts a
new generation, so an edited case is never answered from the cache.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse

from .. import store_cache
from ..documents import CaseDocument, case_document
from ..models import Case
from .cases import case_by_id, published_document


@dataclass(frozen=True)
class CaseRecord:
    """A visible case as the answers about it need it: its document and the attributes the
    API adds (`modified`, the retraction reason). Picklable, so the shared cache can hold it."""

    id: str
    status: str
    modified: datetime.datetime
    retraction_reason: str | None
    document: CaseDocument

    @property
    def retracted(self) -> bool:
        return self.status == Case.Status.RETRACTED

    def get_absolute_url(self) -> str:
        return reverse("incidents:case-detail", args=[self.id])


def case_record(case_id: str) -> CaseRecord | None:
    """The published or retracted case whose id is exactly `case_id`, as a `CaseRecord`, or
    None (no such id, another spelling of one, a merged id: callers then use `find_case`,
    which redirects or names the closest ids).

    Only with the store cache on (`settings.STORE_CACHE`); off, always None, so that callers
    keep their one lookup. Cost: a hit two cache reads, no query; a miss `case_by_id`'s 7
    queries (1 when there is no such case), then cached, a None included.
    """
    if not settings.STORE_CACHE:
        return None
    return store_cache.cached(f"case-record:{case_id}", lambda: _record(case_id))


def _record(case_id: str) -> CaseRecord | None:
    case = case_by_id(case_id)
    if case is None:
        return None
    return record_of(case)


def record_of(case: Case, *, as_stored: bool = False) -> CaseRecord:
    """`case` (prefetched as `case_by_id` does) as a `CaseRecord` with its
    `published_document`, or with `as_stored` its `case_document` (every hand-made link as
    the editor made it: what the write API answers an editor); no queries."""
    return CaseRecord(
        id=case.id,
        status=case.status,
        modified=case.modified,
        retraction_reason=case.retraction_reason,
        document=case_document(case) if as_stored else published_document(case),
    )
