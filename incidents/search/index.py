"""Keeping derived search data in step with the cases: index rows, passage embeddings and
stored neighbours.

Nothing here listens to signals. The services that write cases call these explicitly:
`services.write_documents` calls `cases_written` inside the import transaction (so a failed
import leaves index and neighbours untouched) and `services.delete_cases` calls
`cases_deleted`. `manage.py rebuild_search` (`rebuild_all`) is the one full rebuild, for
cases changed any other way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from incidents import store_cache
from incidents.models import Case, Term

from . import deferred, profiles, word_statistics
from .backends import get_backend
from .semantic import encode_missing, update_embeddings
from .similarity import hubness_before_delete, rebuild_neighbours, update_neighbours
from .text import cases_for_index, index_columns


def reindex_cases(case_ids: Iterable[str], each_batch: Callable[[list[Case]], None] | None = None) -> int:
    """Rewrite the index rows of `case_ids` (every status; search filters). Returns rows.
    `each_batch` is given every batch of cases read (`text.cases_for_index`) once its rows
    are handed to the writer (PostgreSQL's parallel writer stores them with the next batch;
    all are stored when the writer closes), for a caller that needs the same text."""
    ids = sorted(set(case_ids))
    backend = get_backend()
    backend.delete(ids)
    terms = Term.objects.in_bulk()
    with backend.writer(len(ids)) as write:
        for start in range(0, len(ids), 500):
            batch = cases_for_index(ids[start : start + 500], terms)
            write([(case.id, index_columns(case)) for case in batch])
            if each_batch is not None:
                each_batch(batch)
    backend.after_bulk_write(len(ids))
    return len(ids)


def cases_written(case_ids: Iterable[str], published_before: list[profiles.Profile] | None = None) -> None:
    """After cases were created or replaced: their index rows, their embeddings (only those
    whose passages changed are encoded) and the neighbour lists (which read the embeddings);
    a first bulk import that allows it leaves the last two to `finish_pending`.
    The cases' text is read once: the similar-case profiles are counted from the batches the
    index rows were written from (reading them again took a tenth of an import).
    `published_before`: every published profile, read in this transaction under the write
    lock before the cases were written, with no vocabulary term written since
    (`similarity.update_neighbours`)."""
    ids = list(case_ids)
    if not ids:
        return
    texts: dict[str, profiles.Profile] = {}
    reindex_cases(ids, lambda batch: texts.update(profiles.text_profiles(batch)))
    if deferred.leaves_to_the_step(ids):
        # A first bulk import: no old vector is scored, the profiles wait for their mean
        # embeddings, and `finish_pending` encodes and scores (`deferred.py`).
        update_embeddings(ids, encode=False)
        profiles.refresh(ids, texts)
        deferred.leave_every_list()
        return
    update_embeddings(ids)
    update_neighbours(ids, texts, published_before)


def finish_pending() -> int:
    """The step a first bulk import leaves (`deferred.py`): encode the passages of the
    published cases that have no stored vectors (`semantic.encode_missing`, outside the
    write lock, a batch at a time), then store every neighbour list from the stored profiles
    (`similarity.rebuild_neighbours`, which first gives them their mean embeddings). Not to
    be called inside a transaction: the encoding would hold the write lock throughout.
    Returns the neighbour rows written."""
    encode_missing()
    return rebuild_neighbours(refresh_profiles=False)


def cases_deleting(case_ids: Iterable[str]) -> None:
    """Before cases are deleted (under the write lock): the stored hubness of the cases
    whose nearest by embedding hold one of them (`similarity.hubness_before_delete`)."""
    hubness_before_delete(sorted(set(case_ids)))


def cases_deleted(case_ids: Iterable[str]) -> None:
    """After cases were deleted: their index rows go (their neighbour rows cascade)."""
    get_backend().delete(sorted(set(case_ids)))


def sync_index() -> None:
    """Drop index rows of cases that are gone and index the cases that have no row (after
    migrations, `IncidentsConfig`). When either happens, every cached read of the store is
    retired (`store_cache.changed`): log matching keeps counts of the cases a token's
    rows match, and a server running beside `migrate` would go on serving the old ones."""
    existing = set(Case.objects.values_list("id", flat=True))
    indexed = _drop_orphans(existing)
    missing = existing - indexed
    if missing:
        reindex_cases(missing)
    if missing or indexed - existing:
        store_cache.changed()


def _drop_orphans(existing: set[str]) -> set[str]:
    """Delete the index rows of cases not in `existing`; returns the ids indexed before."""
    backend = get_backend()
    indexed = backend.indexed_ids()
    backend.delete(sorted(indexed - existing))
    return indexed


def rebuild_all() -> None:
    """Rebuild the whole index (orphan rows dropped), the embeddings of cases whose passages
    changed or that have none, every stored neighbour list and the word statistics. Every case's text is read
    once: the profiles are counted from the batches the index rows were written from."""
    ids = list(Case.objects.values_list("id", flat=True))
    _drop_orphans(set(ids))
    texts: dict[str, profiles.Profile] = {}
    reindex_cases(ids, lambda batch: texts.update(profiles.text_profiles(batch)))
    update_embeddings(ids)
    rebuild_neighbours(texts=texts)
    # Counted again from the stored rows: a case deleted or edited outside the services
    # left them disagreeing with the profiles (`word_statistics.consistent`).
    word_statistics.recount()
