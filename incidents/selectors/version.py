"""The store version: what changes whenever anything a page or an API answer shows can
change. Pages and the API build their `ETag` / `Last-Modified` from it.

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
from dataclasses import dataclass

from django.db.models import Count, Max

from .. import store_cache
from ..models import Case, Term


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
    """Newest case modification, number of cases and a vocabulary digest for the current
    store generation, kept in this process (`store_cache.local`: no cache read beyond the
    generation a request reads anyway); computed by each process once per generation with
    two queries (one aggregate over cases, one read of the term table).

    Read from the database, not from the shared cache: a request that remembers the
    generation before another process's write would read that older generation's entry
    there, and `local` files its value under the newer token.
    """
    return store_cache.local("store-version", _compute_store_version)


def _compute_store_version() -> StoreVersion:
    row = Case.objects.aggregate(last=Max("modified"), n=Count("id"))
    terms = Term.objects.order_by("id").values_list(
        "id", "facet", "slug", "name", "description", "synonyms", "patterns"
    )
    digest = hashlib.sha256(json.dumps(list(terms), ensure_ascii=False).encode()).hexdigest()
    return StoreVersion(last_modified=row["last"], case_count=row["n"], vocabulary_digest=digest[:16])
