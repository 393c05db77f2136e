"""The vocabulary definitions an import writes: those that differ from the stored terms
(`changed_definitions`), the terms they rename, and their upsert.
"""

from __future__ import annotations

from ..models import Term
from ..vocabulary import TermDefinition, VocabularyDefinitions


def _stored_form(definition: TermDefinition) -> tuple:
    """What `_upsert_terms` writes of a definition, to compare with a stored term."""
    return (
        definition.name,
        definition.description,
        list(definition.synonyms),
        list(definition.patterns),
        definition.vendor,
        definition.source_url,
        definition.family,
    )


def changed_definitions(definitions: VocabularyDefinitions) -> list[TermDefinition]:
    """The definitions whose term is not stored as they say (new, or any field or family
    different), in file order. One query. Re-importing the vocabulary file a library was
    built from changes nothing: its terms are not written again, and what the import
    reuses (the published profiles, the organization and accelerator links) stays valid."""
    if not definitions.terms:
        return []
    facets = {d.facet for d in definitions.terms}
    stored = {
        (t.facet, t.slug): (
            t.name,
            t.description,
            list(t.synonyms),
            list(t.patterns),
            t.vendor,
            t.source_url,
            t.family.name if t.family is not None else None,
        )
        for t in Term.objects.filter(facet__in=facets).select_related("family")
    }
    # Several vocabulary files may define one term: the last definition is the one written.
    last = {(d.facet, d.slug): d for d in definitions.terms}
    return [d for d in last.values() if stored.get((d.facet, d.slug)) != _stored_form(d)]


def _renamed_terms(changed: list[TermDefinition]) -> list[int]:
    """Ids of the stored terms that the `changed` definitions give another name (a term is
    keyed by facet and slug): the documents of the cases using them change (1 query)."""
    wanted = {(str(d.facet), d.slug): d.name for d in changed}
    stored = Term.objects.filter(slug__in={slug for _, slug in wanted}).values_list(
        "id", "facet", "slug", "name"
    )
    return [term_id for term_id, facet, slug, name in stored if wanted.get((facet, slug), name) != name]


def _upsert_terms(changed: list[TermDefinition]) -> int:
    """Write the `changed` definitions (`changed_definitions`); returns how many."""
    written: dict[tuple[str, str], Term] = {}
    for definition in changed:
        term, _ = Term.objects.update_or_create(
            facet=definition.facet,
            slug=definition.slug,
            defaults={
                "name": definition.name,
                "description": definition.description,
                "synonyms": list(definition.synonyms),
                "patterns": list(definition.patterns),
                "vendor": definition.vendor,
                "source_url": definition.source_url,
                "family": None,
            },
        )
        written[(definition.facet, definition.name)] = term
    # Families after every term exists: a model may come before its family in the file, and
    # the family itself may be unchanged (stored, not written here).
    for definition in changed:
        if definition.family is not None:
            term = written[(definition.facet, definition.name)]
            family = written.get((definition.facet, definition.family))
            term.family = family or Term.objects.get(facet=definition.facet, name=definition.family)
            term.save(update_fields=["family"])
    return len(changed)
