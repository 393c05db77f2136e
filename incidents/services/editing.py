"""One case document saved as import saves it (the admin, the write API and proposals save
through `save_case_document`), the next free case id, and the case write lock held across a
caller's read and the writes that follow (`writing_cases`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from .. import history
from ..locking import serialize_case_writes
from ..models import Case
from ..problems import CaseImportError, ImportProblem
from ..validation import LoadedDocument, validate_batch
from ..vocabulary import VocabularyDefinitions
from .writing import write_documents


def validate_document(document: dict[str, Any], *, where: str = "document") -> list[ImportProblem]:
    """Import's own validation of one document (schema, cross-checks, vocabulary in the
    database, retired ids); `where` names it in each problem. An empty list means valid."""
    return validate_batch([LoadedDocument(where, document)], VocabularyDefinitions())


@dataclass(frozen=True)
class SaveResult:
    """What `save_case_document` did: the case's id, whether the save created the case, and
    whether it changed it (False: the document equals the stored case, nothing written)."""

    case_id: str
    created: bool
    changed: bool


@transaction.atomic
def save_case_document(
    document: dict[str, Any], *, user: history.User = None, reason: str = "", where: str = "document"
) -> SaveResult:
    """Validate one case document exactly as import does and write it the way import does
    (derived search data and history follow). The admin and the write API save through here.

    Raises CaseImportError (nothing written) with every problem found.
    """
    problems = validate_document(document, where=where)
    if problems:
        raise CaseImportError(problems)
    result = write_documents(
        [LoadedDocument(where, document)], VocabularyDefinitions(), user=user, reason=reason
    )
    case_id = document["id"]
    return SaveResult(
        case_id=case_id, created=case_id in result.created, changed=case_id not in result.unchanged
    )


def next_case_id() -> str:
    """The next free id (`IL-` and one more than the highest number ever used, merged ids
    included, so no id is reused). One query."""
    numbers = [int(cid.split("-", 1)[1]) for cid in Case.objects.values_list("id", flat=True)]
    return f"IL-{max(numbers, default=0) + 1:04d}"


@contextmanager
def writing_cases() -> Iterator[None]:
    """One transaction holding the case write lock (`serialize_case_writes`) from its start:
    what the caller reads inside (the write API's `If-Match` check of a case) still holds
    when the services it calls inside write, as no other writer can come in between."""
    with transaction.atomic():
        serialize_case_writes()
        yield
