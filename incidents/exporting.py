"""Export: every case as its schema document, one file per case or one JSON Lines stream."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .documents import CaseDocument, case_document, dumps_document
from .models import Case, CaseQuerySet

EXPORT_BATCH_SIZE = 200


def iter_documents(queryset: CaseQuerySet | None = None) -> Iterator[CaseDocument]:
    """Yield case documents in id order, reading `EXPORT_BATCH_SIZE` cases at a time.

    Memory stays bounded by one batch whatever the number of cases.
    """
    cases = (queryset if queryset is not None else Case.objects.all()).order_by("id")
    last_id = ""
    while True:
        batch = list(cases.filter(id__gt=last_id).with_document()[:EXPORT_BATCH_SIZE])
        if not batch:
            return
        for case in batch:
            yield case_document(case)
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
