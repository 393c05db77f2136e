"""Reads for scripts that keep up with the case store: versions, the change feed, export.

The JSON API uses these for its validators (`ETag` / `Last-Modified`), for
`GET /api/changes` and for the JSON Lines export. Each is one cheap query (or one query
per export batch) whatever the number of cases.

Every write goes through `services.write_documents`: a case whose document changed is saved
again, which moves its `Case.modified` (`auto_now`). Vocabulary terms carry no time stamp
and may change (descriptions, synonyms) without any case changing, so the store version
also holds a digest of the vocabulary: the two together change whenever anything an API
answer shows can change.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Max, QuerySet

from .documents import CaseDocument
from .exporting import iter_documents
from .models import Case, Term


@dataclass(frozen=True)
class StoreVersion:
    """What identifies the state of the whole case store."""

    last_modified: datetime.datetime | None  # newest `Case.modified`, None when empty
    case_count: int  # cases of every status
    vocabulary_digest: str  # digest of every term's fields

    @property
    def token(self) -> str:
        stamp = self.last_modified.isoformat() if self.last_modified else "-"
        return f"{stamp}/{self.case_count}/{self.vocabulary_digest}"


def store_version() -> StoreVersion:
    """Newest case modification, number of cases and a vocabulary digest: two queries (one
    aggregate over cases, one read of the term table, which stays small).
    """
    row = Case.objects.aggregate(last=Max("modified"), n=Count("id"))
    terms = Term.objects.order_by("id").values_list(
        "id", "facet", "slug", "name", "description", "synonyms", "patterns"
    )
    digest = hashlib.sha256(json.dumps(list(terms), ensure_ascii=False).encode()).hexdigest()
    return StoreVersion(last_modified=row["last"], case_count=row["n"], vocabulary_digest=digest[:16])


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

    The same documents `export_cases` writes (built by `documents.case_document`); memory
    stays bounded by one batch.
    """
    return iter_documents(Case.objects.published())


def visible_case_exists(case_id: str) -> bool:
    """Whether a published or retracted case has exactly this id: one indexed query."""
    return Case.objects.visible().filter(id=case_id).exists()


def topic_exists(slug: str) -> bool:
    """Whether a topic has this slug: one indexed query."""
    return Term.objects.filter(facet="topic", slug=slug).exists()
