"""Keeping derived search data in step with the cases: index rows and stored neighbours.

- `cases_written` (sent inside the import transaction): the written cases are re-indexed
  and neighbours updated incrementally, so a failed import leaves both untouched;
- `post_delete` of a case: its index row goes (its neighbour rows cascade);
- `post_migrate` (also sent after a test flush): index rows are brought in line with the
  cases (orphans dropped, missing rows added), missing embeddings computed, and neighbours
  rebuilt if there are none or embeddings were missing.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models.signals import post_delete, post_migrate
from django.dispatch import receiver

from incidents.models import Case
from incidents.signals import cases_written

from .backends import get_backend
from .models import CaseEmbedding, CaseNeighbour
from .semantic import missing_ids, update_embeddings
from .similarity import rebuild_neighbours, update_neighbours
from .text import index_columns


def reindex_cases(case_ids: Iterable[str]) -> int:
    """Rewrite the index rows of `case_ids` (every status; search filters). Returns rows."""
    ids = sorted(set(case_ids))
    backend = get_backend()
    backend.delete(ids)
    rows = []
    for start in range(0, len(ids), 500):
        batch = Case.objects.filter(id__in=ids[start : start + 500]).with_document()
        rows = [(case.id, index_columns(case)) for case in batch]
        backend.write(rows)
    backend.after_bulk_write(len(ids))
    return len(ids)


def sync_index() -> None:
    """Drop index rows of cases that are gone and index the cases that have no row."""
    backend = get_backend()
    indexed = backend.indexed_ids()
    existing = set(Case.objects.values_list("id", flat=True))
    backend.delete(sorted(indexed - existing))
    missing = existing - indexed
    if missing:
        reindex_cases(missing)


def rebuild_all() -> None:
    """Rebuild the whole index, the embeddings of changed cases and every neighbour list."""
    ids = list(Case.objects.values_list("id", flat=True))
    reindex_cases(ids)
    update_embeddings(ids)
    rebuild_neighbours()


@receiver(cases_written, dispatch_uid="search-cases-written")
def _on_cases_written(sender, case_ids, **kwargs) -> None:
    # Embeddings first: the neighbour scores read them.
    reindex_cases(case_ids)
    update_embeddings(case_ids)
    update_neighbours(case_ids)


@receiver(post_delete, sender=Case, dispatch_uid="search-case-deleted")
def _on_case_deleted(sender, instance, **kwargs) -> None:
    get_backend().delete([instance.pk])


def _search_tables_exist() -> bool:
    tables = connection.introspection.table_names()
    return "incidents_case" in tables and {
        CaseNeighbour._meta.db_table,
        CaseEmbedding._meta.db_table,
    } <= set(tables)


@receiver(post_migrate, dispatch_uid="search-post-migrate")
def _on_post_migrate(sender, app_config=None, using="default", **kwargs) -> None:
    if app_config is None or app_config.label != "incidents" or using != "default":
        return
    if not _search_tables_exist():
        return
    sync_index()
    missing = missing_ids()
    if missing:
        update_embeddings(missing)
    if (missing or not CaseNeighbour.objects.exists()) and Case.objects.published().count() > 1:
        rebuild_neighbours()
