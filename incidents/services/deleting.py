"""Deleting cases with their index rows (`delete_cases`)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction

from .. import store_cache
from ..locking import serialize_case_writes
from ..models import Case
from ..search import index, word_statistics


@transaction.atomic
def delete_cases(case_ids: Iterable[str]) -> int:
    """Delete cases (their sources, tables, links and neighbour rows cascade) and their index
    rows. Returns how many cases were deleted."""
    ids = list(case_ids)
    store_cache.changed(ids)
    deleted = Case.objects.filter(id__in=ids).count()
    serialize_case_writes()  # the word statistics are read, added to and written back
    word_statistics.forget(ids)  # their profile rows go with them
    index.cases_deleting(ids)  # the hubness of the cases whose nearest hold them
    Case.objects.filter(id__in=ids).delete()
    index.cases_deleted(ids)
    return deleted
