"""Import's normalisation of a valid document (`Preparer`) and its plan: which documents
create a case, replace one, or equal what is stored already.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..affected import ComponentIndex, normalised_range
from ..codes import CodeVocabulary
from ..documents import case_document, normalized_document
from ..id_lists import ids_in
from ..line_endings import with_unix_newlines
from ..models import Case
from ..references import normalised_reference
from ..term_spellings import TermSpellings
from ..validation import LoadedDocument
from ..vocabulary import VocabularyDefinitions


@dataclass(frozen=True)
class _ImportPlan:
    """Which documents create a case, replace one, or equal what is stored already."""

    created: list[str]
    updated: list[str]
    unchanged: list[str]
    to_write: list[LoadedDocument]
    derived: dict[str, list[str]]  # case id -> its error codes found by their patterns


@dataclass(frozen=True)
class Preparer:
    """Import's normalisation of a valid document before it is compared and written:
    every line break as `\\n` (`line_endings`: a browser sends a textarea's as CRLF, so an
    admin form saved untouched is no change), `symptoms.error_codes` by name plus the codes
    its text shows (`codes.CodeVocabulary`), `affected` components by name and every range
    spelled out, `references` spelled out with `id` filled from the URL, the other
    term-valued fields by their terms' references (`term_spellings`: a synonym by its term).
    Export writes documents in this form, so re-importing an export changes nothing."""

    codes: CodeVocabulary
    components: ComponentIndex
    spellings: TermSpellings

    @classmethod
    def load(cls, definitions: VocabularyDefinitions | None = None) -> Preparer:
        """From the stored vocabulary and `definitions` (three queries)."""
        return cls(
            CodeVocabulary.load(definitions),
            ComponentIndex.load(definitions),
            TermSpellings.load(definitions),
        )

    def __call__(
        self, document: dict[str, Any], derived_before: Collection[str] = ()
    ) -> tuple[dict[str, Any], list[str]]:
        """The prepared document and the names of its derived error codes (`derived_before`:
        the case's codes stored as derived, see `CodeVocabulary.split`)."""
        document = self.spellings.normalised(with_unix_newlines(document))
        stated, derived = self.codes.split(document, derived_before)
        prepared = dict(document)
        prepared["symptoms"] = {**document["symptoms"], "error_codes": [*stated, *derived]}
        prepared["affected"] = [normalised_range(a, self.components) for a in document.get("affected", [])]
        prepared["references"] = [normalised_reference(r) for r in document.get("references", [])]
        return prepared, derived


def _plan(items: list[LoadedDocument], prepare: Preparer) -> _ImportPlan:
    stored_cases = list(Case.objects.filter(id__in=ids_in([i.document["id"] for i in items])).with_document())
    stored = {case.id: dict(case_document(case)) for case in stored_cases}
    derived_before = {
        case.id: {link.term.name for link in case.term_links.all() if link.derived} for case in stored_cases
    }
    plan = _ImportPlan(created=[], updated=[], unchanged=[], to_write=[], derived={})
    for item in items:
        case_id = item.document["id"]
        document, plan.derived[case_id] = prepare(item.document, derived_before.get(case_id, ()))
        item = LoadedDocument(item.file, document)
        # Only a stored case can be unchanged: a new one is normalised once, by `_write_cases`
        # (normalising every document here too was a twentieth of a first import).
        if case_id in stored and stored[case_id] == normalized_document(item.document):
            plan.unchanged.append(case_id)
            continue
        (plan.updated if case_id in stored else plan.created).append(case_id)
        plan.to_write.append(item)
    return plan
