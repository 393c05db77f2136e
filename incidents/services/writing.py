"""The one write of case documents (`write_documents`: import, the admin, the write API,
proposals and restore all come here) in batches of bulk statements, and bringing the search
index, neighbours and caches in step with written cases (`refresh_derived`).
"""

from __future__ import annotations

import datetime
from collections.abc import Collection
from typing import Any

from django.db import transaction
from django.utils import timezone

from .. import history, store_cache
from ..bulk_sql import insert_rows
from ..document_model import case_model
from ..documents import normalized_document
from ..id_lists import ids_in
from ..locking import serialize_case_writes
from ..models import (
    ALIAS_FACETS,
    Case,
    CaseKey,
    CaseRelation,
    CaseTerm,
    Facet,
    ScaleColumn,
    ScaleRow,
    ScaleTable,
    Source,
    Term,
)
from ..references import case_keys
from ..search import index, profiles
from ..validation import LoadedDocument, term_references
from ..vocabulary import VocabularyDefinitions, reference_of
from .aliases import Resolver, _alias_terms, relink_aliases
from .definitions import _renamed_terms, _upsert_terms, changed_definitions
from .positions import ALIAS_POSITION, CODE_POSITION
from .preparing import Preparer, _plan
from .recording import _cases_using, _document_digests, _record_document_changes
from .results import ImportResult


@transaction.atomic
def write_documents(
    items: list[LoadedDocument],
    definitions: VocabularyDefinitions,
    *,
    user: history.User = None,
    reason: str = "",
    published_before: list[profiles.Profile] | None = None,
) -> ImportResult:
    """Write validated documents and definitions; the same id again replaces that case.

    A document equal to what is stored is left alone, so re-importing the same files keeps
    each case's `modified` time (the change feed stays meaningful) and its derived data.
    The changed cases' index rows and similar-case neighbours are updated here, inside the
    transaction (`refresh_derived`); each written case gets a history row (`history.record`)
    naming `user` and `reason`. Only the definitions that differ from the stored terms are
    written (`changed_definitions`); a stored case not imported that shows a term one of
    them renames gets its `modified` moved and a history row (`_record_document_changes`).
    `published_before`: every published profile (`profiles.published`), read by the caller
    inside this transaction once it held the write lock, so that the neighbour update does
    not read the unchanged ones again; used only when no definition changes a term (the
    profiles' terms are then as they were read).
    """
    serialize_case_writes()
    changed_terms = changed_definitions(definitions)
    if changed_terms:
        published_before = None  # the terms they name change here
    renamed = _renamed_terms(changed_terms)
    shown_before = _document_digests(_cases_using(renamed)) if renamed else {}
    terms_written = _upsert_terms(changed_terms)
    stored_terms = list(Term.objects.select_related("family"))
    terms = {(t.facet, reference_of(t.facet, t.name, t.slug)): t for t in stored_terms}
    resolve = Resolver(stored_terms)
    plan = _plan(items, Preparer.load())
    created = set(plan.created)
    for start in range(0, len(plan.to_write), WRITE_BATCH):
        written = _write_cases(plan.to_write[start : start + WRITE_BATCH], terms, resolve, plan.derived)
        # History from the rows just written, not from a second read of every case: a
        # written case's document is its normalised import document (`_plan` relies on
        # the same equality to find unchanged cases).
        history.record_written(written, user=user, reason=reason, created_ids=created)
    if any(d.facet in ALIAS_FACETS for d in changed_terms):
        # New or moved spellings may change which term a stored case's organization or
        # accelerator names: bring every case's links in step.
        relink_aliases(resolve)
    changed_items = plan.to_write
    ids = [item.document["id"] for item in changed_items]
    CaseRelation.objects.filter(source_id__in=ids_in(ids)).delete()
    CaseRelation.objects.bulk_create(
        CaseRelation(source_id=item.document["id"], target_id=target, position=position)
        for item in changed_items
        for position, target in enumerate(item.document.get("related", []))
    )
    # Stored cases that show a renamed term: their documents changed without being imported.
    imported = set(ids)
    shown = {case_id: digest for case_id, digest in shown_before.items() if case_id not in imported}
    reshown = _record_document_changes(shown, user=user, reason="term renamed by a vocabulary import")
    refresh_derived([*ids, *reshown], published_before)
    return ImportResult(
        created=plan.created, updated=plan.updated, unchanged=plan.unchanged, terms_written=terms_written
    )


def refresh_derived(case_ids: list[str], published_before: list[profiles.Profile] | None = None) -> None:
    """Bring the search index and stored neighbours in step with `case_ids` (inside the
    caller's transaction, so a failed write leaves them untouched too), and retire every
    cached read of the store (`store_cache.changed`: store version, vocabulary counts).
    `published_before`: as for `write_documents`."""
    store_cache.changed(case_ids)
    index.cases_written(case_ids, published_before)


# Cases written per round of bulk statements: a fixed number of queries per batch whatever
# its size, and model objects for one batch only in memory at a time.
WRITE_BATCH = 500


def _write_cases(
    items: list[LoadedDocument],
    terms: dict[tuple[str, str], Term],
    resolve: Resolver,
    derived_codes: dict[str, list[str]],
) -> list[tuple[Case, dict[str, Any]]]:
    """Write a batch of prepared documents (new cases and replacements) with a fixed number
    of statements: one insert of the new cases and one update of the replaced ones, one
    delete and one bulk insert per child table (terms, sources, keys, scale tables with
    their columns and rows). Columns the document does not hold (status history,
    retraction, merge, when it was first published) are left as stored; a case published
    for the first time is `added` at its write's time. Returns each case as written (those
    columns read back) with its normalised document."""
    documents = [normalized_document(item.document) for item in items]
    ids = [document["id"] for document in documents]
    editorial = {
        case_id: (reason, merged_into, added)
        for case_id, reason, merged_into, added in Case.objects.filter(id__in=ids_in(ids)).values_list(
            "id", "retraction_reason", "merged_into_id", "added"
        )
    }
    existing = set(editorial)
    now = timezone.now()
    cases: list[Case] = []
    fields: list[str] = []
    for i, document in enumerate(documents):
        columns = case_model().columns(document, lambda facet, reference: terms[(facet, reference)])
        fields = [name for name in columns if name != "id"]
        # One microsecond apart, so that the change feed lists an import's cases in the
        # order written (newest first). Its cursor no longer needs distinct times: it is a
        # keyset on (modified, id) (`api.keyset`), which pages through equal times too.
        case = Case(**columns, modified=now + datetime.timedelta(microseconds=i))
        case.retraction_reason, case.merged_into_id, case.added = editorial.get(case.id, (None, None, None))
        if case.added is None and case.status == Case.Status.PUBLISHED:
            case.added = case.modified
        cases.append(case)
    # Plain executemany, as for the child rows: bulk_create's per-field preparation and
    # per-row placeholders were two fifths of writing a batch (no `auto_now` runs: the
    # times above are kept).
    attnames = [field.attname for field in Case._meta.concrete_fields]
    insert_rows(
        Case, attnames, ([getattr(case, a) for a in attnames] for case in cases if case.id not in existing)
    )
    replaced = [case for case in cases if case.id in existing]
    if replaced:
        Case.objects.bulk_update(replaced, [*fields, "modified", "added"], batch_size=WRITE_BATCH)
        CaseTerm.objects.filter(case_id__in=list(existing)).delete()
        Source.objects.filter(case_id__in=list(existing)).delete()
        CaseKey.objects.filter(case_id__in=list(existing)).delete()
        ScaleTable.objects.filter(case_id__in=list(existing)).delete()
    links: list[tuple[str, int, int, bool]] = []
    sources: list[tuple[str, int, str | None, str]] = []
    keys: list[tuple[str, str, str]] = []
    tables: list[tuple[ScaleTable, dict[str, Any]]] = []
    for document in documents:
        case_id = document["id"]
        links.extend(_term_links(document, terms, resolve, derived_codes.get(case_id, ())))
        sources.extend((case_id, i, s.get("title"), s["url"]) for i, s in enumerate(document["sources"]))
        keys.extend((case_id, kind, key) for kind, key in case_keys(document))
        keys.extend(
            (case_id, CaseKey.Kind.AFFECTED, slug)
            for slug in dict.fromkeys(
                terms[(Facet.COMPONENT, item["component"])].slug for item in document["affected"]
            )
        )
        tables.extend(
            (ScaleTable(case_id=case_id, position=t, caption=table["caption"]), table)
            for t, table in enumerate(document["scale_tables"])
        )
    # Plain executemany: about 15 term links a case made bulk_create's per-object work
    # the larger part of writing a batch.
    insert_rows(CaseTerm, ("case_id", "term_id", "position", "derived"), links)
    insert_rows(Source, ("case_id", "position", "title", "url"), sources)
    insert_rows(CaseKey, ("case_id", "kind", "key"), keys)
    # The tables' ids are needed by their columns and rows: both backends return them.
    ScaleTable.objects.bulk_create([table for table, _ in tables])
    ScaleColumn.objects.bulk_create(
        ScaleColumn(table=table, position=i, key=c["key"], label=c["label"], unit=c.get("unit"))
        for table, table_doc in tables
        for i, c in enumerate(table_doc["columns"])
    )
    ScaleRow.objects.bulk_create(
        ScaleRow(table=table, position=i, values=r["values"], outcome=r["outcome"], note=r.get("note"))
        for table, table_doc in tables
        for i, r in enumerate(table_doc["rows"])
    )
    return list(zip(cases, documents, strict=True))


def _term_links(
    document: dict[str, Any],
    terms: dict[tuple[str, str], Term],
    resolve: Resolver,
    derived_codes: Collection[str],
) -> list[tuple[str, int, int, bool]]:
    """A case's ordered term rows as (case_id, term_id, position, derived): every facet's
    terms (the root cause's included; the root-cause foreign key is for display), its error
    codes, then organization and accelerator."""
    case_id = document["id"]
    return [
        *(
            (case_id, terms[(facet, reference)].id, position, False)
            for position, (facet, reference, _path) in enumerate(term_references(document))
        ),
        *(
            (
                case_id,
                terms[(Facet.ERROR_CODE, name)].id,
                CODE_POSITION + i,
                name in derived_codes,
            )
            for i, name in enumerate(document["symptoms"]["error_codes"])
        ),
        *(
            (case_id, term.id, ALIAS_POSITION + i, False)
            for i, term in enumerate(
                _alias_terms(document["organization"], document["environment"].get("accelerator"), resolve)
            )
        ),
    ]
