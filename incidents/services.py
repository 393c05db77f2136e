"""Writes to the case store. Import is all-or-nothing: validate everything, then write in
one transaction; any problem raises `CaseImportError` and leaves the database untouched.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction

from .documents import case_document, normalized_document
from .durations import duration_seconds
from .locking import serialize_case_writes
from .models import (
    Case,
    CaseRelation,
    CaseTerm,
    Facet,
    ScaleColumn,
    ScaleRow,
    ScaleTable,
    Source,
    Term,
)
from .problems import CaseImportError, ImportProblem
from .search import index
from .validation import (
    LoadedDocument,
    expand_paths,
    load_documents,
    term_references,
    validate_batch,
)
from .vocabulary import VocabularyDefinitions, load_vocabulary, reference_of


@dataclass(frozen=True)
class ImportResult:
    created: list[str]
    updated: list[str]
    unchanged: list[str]
    terms_written: int


def import_case_files(
    *, paths: Iterable[str | Path], vocab_paths: Iterable[str | Path] = (), dry_run: bool = False
) -> ImportResult:
    """Validate and import case JSON files (files or folders) with optional vocabulary files.

    Raises CaseImportError listing every problem (file, JSON path, message); nothing is
    written then. With `dry_run` everything is validated and nothing is written.
    """
    paths = [Path(path) for path in paths]
    problems: list[ImportProblem] = []
    definitions = VocabularyDefinitions()
    for vocab_path in vocab_paths:
        loaded, found = load_vocabulary(Path(vocab_path))
        definitions.terms.extend(loaded.terms)
        problems.extend(found)
    vocabulary_ok = not problems
    files, found = expand_paths(paths)
    problems.extend(found)
    if not files and not problems:
        problems.append(ImportProblem(", ".join(str(p) for p in paths), "$", "no case JSON files found"))
    items, found = load_documents(files)
    problems.extend(found)
    # Documents that parsed are checked even when others did not, so one run reports all;
    # with a broken vocabulary file every term would look unknown, so that waits for a fix.
    if vocabulary_ok:
        problems.extend(validate_batch(items, definitions))
    if problems:
        raise CaseImportError(problems)
    if dry_run:
        plan = _plan(items)
        return ImportResult(
            created=plan.created, updated=plan.updated, unchanged=plan.unchanged, terms_written=0
        )
    return write_documents(items, definitions)


@dataclass(frozen=True)
class _ImportPlan:
    """Which documents create a case, replace one, or equal what is stored already."""

    created: list[str]
    updated: list[str]
    unchanged: list[str]
    to_write: list[LoadedDocument]


def _plan(items: list[LoadedDocument]) -> _ImportPlan:
    stored = {
        case.id: dict(case_document(case))
        for case in Case.objects.filter(id__in=[i.document["id"] for i in items]).with_document()
    }
    plan = _ImportPlan(created=[], updated=[], unchanged=[], to_write=[])
    for item in items:
        case_id = item.document["id"]
        if stored.get(case_id) == normalized_document(item.document):
            plan.unchanged.append(case_id)
            continue
        (plan.updated if case_id in stored else plan.created).append(case_id)
        plan.to_write.append(item)
    return plan


@transaction.atomic
def write_documents(items: list[LoadedDocument], definitions: VocabularyDefinitions) -> ImportResult:
    """Write validated documents and definitions; the same id again replaces that case.

    A document equal to what is stored is left alone, so re-importing the same files keeps
    each case's `modified` time (the change feed stays meaningful) and its derived data.
    The changed cases' index rows and similar-case neighbours are updated here, inside the
    transaction (`search.index.cases_written`).
    """
    serialize_case_writes()
    terms_written = _upsert_terms(definitions)
    terms = {(t.facet, reference_of(t.facet, t.name, t.slug)): t for t in Term.objects.all()}
    plan = _plan(items)
    for item in plan.to_write:
        _write_case(item.document, terms)
    changed_items = plan.to_write
    ids = [item.document["id"] for item in changed_items]
    CaseRelation.objects.filter(source_id__in=ids).delete()
    CaseRelation.objects.bulk_create(
        CaseRelation(source_id=item.document["id"], target_id=target, position=position)
        for item in changed_items
        for position, target in enumerate(item.document.get("related", []))
    )
    index.cases_written(ids)
    return ImportResult(
        created=plan.created, updated=plan.updated, unchanged=plan.unchanged, terms_written=terms_written
    )


def _upsert_terms(definitions: VocabularyDefinitions) -> int:
    for definition in definitions.terms:
        Term.objects.update_or_create(
            facet=definition.facet,
            slug=definition.slug,
            defaults={
                "name": definition.name,
                "description": definition.description,
                "synonyms": list(definition.synonyms),
                "patterns": list(definition.patterns),
            },
        )
    return len(definitions.terms)


def _date(value: str | None) -> datetime.date | None:
    return datetime.date.fromisoformat(value) if value else None


def _write_case(document: dict[str, Any], terms: dict[tuple[str, str], Term]) -> Case:
    facts = document.get("facts", {})
    environment = document.get("environment", {})
    root_cause = document["root_cause"]
    case, _ = Case.objects.update_or_create(
        id=document["id"],
        defaults={
            "title": document["title"],
            "organization": document["organization"],
            "published": _date(document["published"]),
            "occurred": _date(document.get("occurred")),
            "status": document["status"],
            "summary": document["summary"],
            "severity": facts.get("severity"),
            "scope": facts.get("scope"),
            "users_affected": facts.get("users_affected"),
            "region": facts.get("region"),
            "time_to_detect": facts.get("time_to_detect"),
            "time_to_detect_seconds": duration_seconds(facts.get("time_to_detect")),
            "time_to_resolve": facts.get("time_to_resolve"),
            "time_to_resolve_seconds": duration_seconds(facts.get("time_to_resolve")),
            "cluster": environment.get("cluster"),
            "accelerator": environment.get("accelerator"),
            "accelerator_count": environment.get("accelerator_count"),
            "node_count": environment.get("node_count"),
            "symptoms_description": document["symptoms"]["description"],
            "root_cause_category": terms[(Facet.ROOT_CAUSE, root_cause["category"])],
            "root_cause_description": root_cause.get("description"),
            "root_cause_trigger": root_cause.get("trigger"),
            "detection": document.get("detection"),
            "remediation": document.get("remediation", []),
            "action_items": document.get("action_items", []),
            "lessons": document.get("lessons", []),
            "checks": document.get("checks", []),
        },
    )
    case.term_links.all().delete()
    # Every facet's terms, the root cause's included, as ordered rows (the root-cause
    # foreign key above is for display).
    CaseTerm.objects.bulk_create(
        CaseTerm(case=case, term=terms[(facet, reference)], position=position)
        for position, (facet, reference, _path) in enumerate(term_references(document))
    )
    case.sources.all().delete()
    Source.objects.bulk_create(
        Source(case=case, position=i, title=s.get("title"), url=s["url"])
        for i, s in enumerate(document["sources"])
    )
    case.scale_tables.all().delete()
    for t, table_doc in enumerate(document.get("scale_tables", [])):
        table = ScaleTable.objects.create(case=case, position=t, caption=table_doc["caption"])
        ScaleColumn.objects.bulk_create(
            ScaleColumn(table=table, position=i, key=c["key"], label=c["label"], unit=c.get("unit"))
            for i, c in enumerate(table_doc["columns"])
        )
        ScaleRow.objects.bulk_create(
            ScaleRow(table=table, position=i, values=r["values"], outcome=r["outcome"], note=r.get("note"))
            for i, r in enumerate(table_doc["rows"])
        )
    return case


@transaction.atomic
def delete_cases(case_ids: Iterable[str]) -> int:
    """Delete cases (their sources, tables, links and neighbour rows cascade) and their index
    rows. Returns how many cases were deleted."""
    ids = list(case_ids)
    deleted = Case.objects.filter(id__in=ids).count()
    Case.objects.filter(id__in=ids).delete()
    index.cases_deleted(ids)
    return deleted
