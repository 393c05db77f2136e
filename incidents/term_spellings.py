"""Term-valued fields named by any spelling of a term, written back as the term's reference.

A case names topics and workloads by slug and symptom tags, root causes and components by
name (`vocabulary.reference_of`); organizations, accelerators, error codes and `affected`
components already took any spelling. So do these now: the reference itself, or the slug,
name or a synonym of one term of the facet in any letter case (`spelling_key`), as
`acmesched` for the component Acme Scheduler. Import writes the reference back
(`TermSpellings.normalised`), so the stored document, export and re-import agree. A
spelling shared by two terms of a facet names neither: it is reported with both.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .models import ALIAS_FACETS, Facet, Term
from .selectors.spelling import Typed, spelling_key
from .vocabulary import VocabularyDefinitions, reference_of

# The facets a document names by reference: the others have rules of their own.
REFERENCE_FACETS = frozenset(Facet) - {*ALIAS_FACETS, Facet.ERROR_CODE}


class TermSpellings:
    """(facet, spelling) -> the references of the terms it spells, for `REFERENCE_FACETS`."""

    def __init__(self, terms: Iterable[tuple[str, str, str, Sequence[str]]]):
        """`terms`: (facet, name, slug, synonyms); a later (facet, slug) replaces an earlier."""
        by_slug = {(facet, slug): (name, synonyms) for facet, name, slug, synonyms in terms}
        self.references: dict[str, set[str]] = {facet: set() for facet in REFERENCE_FACETS}
        self._by_spelling: dict[tuple[str, str], set[str]] = {}
        for (facet, slug), (name, synonyms) in by_slug.items():
            reference = reference_of(facet, name, slug)
            self.references[facet].add(reference)
            for spelling in (slug, name, *synonyms):
                self._by_spelling.setdefault((facet, spelling_key(spelling)), set()).add(reference)

    @classmethod
    def load(cls, definitions: VocabularyDefinitions | None = None) -> TermSpellings:
        """The stored terms (one query), then those `definitions` define."""
        stored = Term.objects.filter(facet__in=REFERENCE_FACETS).values_list(
            "facet", "name", "slug", "synonyms"
        )
        defined = [
            (str(d.facet), d.name, d.slug, d.synonyms)
            for d in (definitions or VocabularyDefinitions()).terms
            if d.facet in REFERENCE_FACETS
        ]
        return cls([*stored, *defined])

    def candidates(self, facet: str, spelling: Any) -> list[str]:
        """The references `spelling` may mean, sorted: itself when it is one, else those of
        the terms it spells (two or more: ambiguous; none: unknown)."""
        if not isinstance(spelling, str):
            return []
        if spelling in self.references[facet]:
            return [spelling]
        return sorted(self._by_spelling.get((facet, spelling_key(spelling)), ()))

    def closest(self, facet: str, spelling: str, n: int = 3) -> list[str]:
        """The references of up to `n` terms with a spelling close to `spelling`
        (`spelling.closeness`), nearest first."""
        typed = Typed(spelling)
        keys = [key for (key_facet, key) in self._by_spelling if key_facet == facet]
        near = sorted((-score, key) for key in keys if (score := typed.closeness(key)) > 0)
        found = dict.fromkeys(ref for _, key in near for ref in sorted(self._by_spelling[(facet, key)]))
        return list(found)[:n]

    def resolve(self, facet: str, spelling: Any) -> str | None:
        """The one reference `spelling` names, else None."""
        found = self.candidates(facet, spelling)
        return found[0] if len(found) == 1 else None

    def normalised(self, document: dict[str, Any]) -> dict[str, Any]:
        """`document` (valid) with each term-valued field of `REFERENCE_FACETS` written as its
        reference; unchanged values stay the same objects."""
        from .document_model import case_model, value_at  # the model reads the schema on first use

        result = dict(document)
        for binding in case_model().faceted_bindings:
            if binding.facet not in REFERENCE_FACETS:
                continue
            value = value_at(result, binding.path)
            if value is None:
                continue
            spelled = (
                [self.resolve(binding.facet, v) or v for v in value]
                if isinstance(value, list)
                else self.resolve(binding.facet, value) or value
            )
            if spelled == value:
                continue
            parent, _, name = binding.path.rpartition(".")
            if parent:
                result[parent] = {**result[parent], name: spelled}
            else:
                result[name] = spelled
        return result
