"""History of the documents a vocabulary change rewrote without their being written: each
case's document digest before the change, then a new `modified` time and a history row for
each document that differs after it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from typing import Any

import orjson
from django.utils import timezone

from .. import history
from ..models import Case, CaseTerm


def _cases_using(term_ids: Collection[int]) -> list[str]:
    """Ids of the cases linked to any of `term_ids` or having one as root cause (2 queries)."""
    linked = set(CaseTerm.objects.filter(term_id__in=term_ids).values_list("case_id", flat=True))
    linked |= set(Case.objects.filter(root_cause_category_id__in=term_ids).values_list("id", flat=True))
    return sorted(linked)


def _document_digests(case_ids: list[str]) -> dict[str, str]:
    """Case id -> sha256 of its document as served now (`history.documents_in_batches`), to
    tell afterwards which documents a vocabulary change rewrote."""
    return {
        case.id: _digest(document)
        for batch in history.documents_in_batches(case_ids)
        for case, document in batch
    }


def _digest(document: Any) -> str:
    return hashlib.sha256(orjson.dumps(document, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _record_document_changes(before: dict[str, str], *, user: history.User, reason: str) -> list[str]:
    """The cases of `before` (`_document_digests`) whose documents differ now, as after a
    term was renamed: their `modified` moves (the change feed lists them, mirrors refetch
    them, an `If-Match` read before is stale) and each gets a history row with its new
    document. Returns their ids. Queries: 8 per `history.BATCH` cases, plus 2 per batch
    with a change."""
    changed: list[str] = []
    now = timezone.now()
    for batch in history.documents_in_batches(sorted(before)):
        written = [(case, document) for case, document in batch if _digest(document) != before[case.id]]
        for case, _ in written:
            case.modified = now
        if written:
            Case.objects.filter(id__in=[case.id for case, _ in written]).update(modified=now)
            history.record_written(written, user=user, reason=reason)
            changed.extend(case.id for case, _ in written)
    return changed
