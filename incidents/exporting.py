"""Export: every case as its schema document, one file per case or one JSON Lines stream,
and the vocabulary as a definitions file (`fixtures/vocab.json`'s shape) that imports back."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .documents import CaseDocument, case_document, dumps_document
from .models import ALIAS_FACETS, Case, CaseQuerySet, Facet, Term
from .vocabulary import FILE_KEYS

EXPORT_BATCH_SIZE = 200


def iter_documents(
    queryset: CaseQuerySet | None = None, *, build: Callable[[Case], CaseDocument] = case_document
) -> Iterator[CaseDocument]:
    """Yield case documents (`build` of each case, as stored by default) in id order,
    reading `EXPORT_BATCH_SIZE` cases at a time.

    Memory stays bounded by one batch whatever the number of cases.
    """
    cases = (queryset if queryset is not None else Case.objects.all()).order_by("id")
    last_id = ""
    while True:
        batch = list(cases.filter(id__gt=last_id).with_document()[:EXPORT_BATCH_SIZE])
        if not batch:
            return
        for case in batch:
            yield build(case)
        last_id = batch[-1].id


def export_to_directory(directory: Path) -> list[Path]:
    """Write `<id>.json` for every case (all statuses) into `directory`; returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for document in iter_documents():
        path = directory / f"{document['id']}.json"
        path.write_text(dumps_document(document), encoding="utf-8")
        written.append(path)
    return written


def vocabulary_document() -> dict[str, list[dict[str, Any]]]:
    """Every stored term as a definitions file: each facet's plural key (`FILE_KEYS`, every
    key present) -> terms by name, each with name, slug, description, and synonyms and
    patterns when it has some; accelerators with vendor and family (the family's name);
    error codes with vendor and source_url. Two queries. `import_cases --vocab` reads it
    back to the same terms."""
    names = dict(Term.objects.filter(facet=Facet.ACCELERATOR).values_list("id", "name"))
    document: dict[str, list[dict[str, Any]]] = {key: [] for key in FILE_KEYS}
    keys = {facet: key for key, facet in FILE_KEYS.items()}
    for term in Term.objects.order_by("facet", "name"):
        entry: dict[str, Any] = {"name": term.name, "slug": term.slug, "description": term.description}
        if term.facet == Facet.ACCELERATOR:
            entry["vendor"] = term.vendor
            if term.family_id is not None:
                entry["family"] = names[term.family_id]
        if term.facet == Facet.ERROR_CODE:
            entry["vendor"] = term.vendor
            entry["source_url"] = term.source_url
        if term.synonyms:
            entry["synonyms"] = list(term.synonyms)
        if term.patterns and term.facet not in ALIAS_FACETS:
            entry["patterns"] = list(term.patterns)
        document[keys[Facet(term.facet)]].append(entry)
    return document


def export_vocabulary(path: Path) -> int:
    """Write `vocabulary_document()` to `path` as JSON; returns how many terms."""
    document = vocabulary_document()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return sum(len(terms) for terms in document.values())
