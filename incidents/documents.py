"""The case document: one function builds it, export, the API and MCP serve it unchanged.

`case_document` reads a case fetched with `Case.objects.with_document()` (no further
queries) and returns a dict shaped exactly like `case.schema.json`, keys in schema order:
the fields and how each is read are `document_model`'s.
"""

from __future__ import annotations

import json
from typing import Any

from .document_model import case_model
from .models import Case

# A dict laid out as `case.schema.json` says (`document_model` builds and checks it).
CaseDocument = dict[str, Any]


def case_document(case: Case) -> CaseDocument:
    """Build the schema-shaped document of one case (no queries if prefetched)."""
    return case_model().document(case)


def dumps_document(document: CaseDocument, *, indent: int | None = 2) -> str:
    """Serialise a document the one way export writes it (UTF-8 text, stable layout)."""
    text = json.dumps(document, indent=indent, ensure_ascii=False)
    return text + "\n" if indent is not None else text


def normalized_document(document: dict[str, Any]) -> CaseDocument:
    """An incoming document spelled out the way `case_document` builds it, for comparison:
    optional fields filled with their empty values, in schema order (components and error
    codes as written: `services` resolves their spellings before comparing)."""
    return case_model().spelled_out(document)
