"""Keeping derived search data in step with the cases: index rows, passage embeddings and
stored neighbours.

Nothing here listens to signals. The services that write cases call these explicitly:
`services.write_documents` calls `cases_written` inside the import transaction (so a failed
import leaves index and neighbours untouched) and `services.delete_cases` calls
`cases_deleted`. `manage.py rebuild_search` (`rebuild_all`) is the one full rebuild, for
cases changed any other way.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Prefetch

from incidents.models import Case, CaseTerm, Term

from .backends import get_backend
from .semantic import update_embeddings
from .similarity import rebuild_neighbours, update_neighbours
from .text import index_columns


def reindex_cases(case_ids: Iterable[str]) -> int:
    """Rewrite the index rows of `case_ids` (every status; search filters). Returns rows."""
    ids = sorted(set(case_ids))
    backend = get_backend()
    backend.delete(ids)
    terms = Term.objects.in_bulk()
    for start in range(0, len(ids), 500):
        batch = _cases_for_index(ids[start : start + 500], terms)
        backend.write([(case.id, index_columns(case)) for case in batch])
    backend.after_bulk_write(len(ids))
    return len(ids)


def _cases_for_index(case_ids: list[str], terms: dict[int, Term]) -> list[Case]:
    """The cases as `Case.objects.with_index_text()` gives them (only what the index columns
    read: not a document's sources and links), their terms attached from `terms` (every
    term by id): one Term object per term rather than one per link and per root cause,
    which was most of the cost of reading a batch back."""
    cases = list(
        Case.objects.filter(id__in=case_ids)
        .prefetch_related(Prefetch("term_links", queryset=CaseTerm.objects.order_by("position")))
        .with_scale_tables()
    )
    for case in cases:
        case.root_cause_category = terms[case.root_cause_category_id]
        for link in case.term_links.all():
            link.term = terms[link.term_id]
    return cases


def cases_written(case_ids: Iterable[str]) -> None:
    """After cases were created or replaced: their index rows, their embeddings (only those
    whose passages changed are encoded) and the neighbour lists (which read the embeddings)."""
    ids = list(case_ids)
    if ids:
        reindex_cases(ids)
        update_embeddings(ids)
        update_neighbours(ids)


def cases_deleted(case_ids: Iterable[str]) -> None:
    """After cases were deleted: their index rows go (their neighbour rows cascade)."""
    get_backend().delete(sorted(set(case_ids)))


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
    """Rebuild the whole index (orphan rows dropped), the embeddings of cases whose passages
    changed or that have none, and every stored neighbour list."""
    sync_index()
    ids = list(Case.objects.values_list("id", flat=True))
    reindex_cases(ids)
    update_embeddings(ids)
    rebuild_neighbours()
