"""Hand edits of a vocabulary term (`save_term`, the admin's) and re-deriving an error code
whose match patterns changed on every case (`rederive_error_code`).
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import history
from ..codes import CodeVocabulary, case_text
from ..line_endings import unix_newlines
from ..locking import serialize_case_writes
from ..models import ALIAS_FACETS, Case, CaseTerm, Facet, Term
from .aliases import relink_aliases
from .positions import CODE_POSITION
from .recording import _cases_using, _document_digests, _record_document_changes
from .writing import refresh_derived


@transaction.atomic
def save_term(term: Term, *, user: history.User = None) -> Term:
    """Save one vocabulary term edited by hand (checked by `vocabulary.term_problems`); the
    cases that use it are re-indexed, since names and synonyms feed the search index. An
    organization's or accelerator's new spellings relink the cases they now name. An error
    code whose patterns changed is re-derived on every case (`rederive_error_code`) now,
    not at the next import: the cases whose text the new patterns match carry it, those it
    was only derived for and no longer match lose it (a history row each, naming `user`).
    A new name or slug rewrites the documents that show it (`_record_document_changes`:
    their `modified` moves and each gets a history row); an edit no document shows (a
    description, synonyms, a topic's name) moves no case."""
    # Terms name what an import's neighbour update reuses (`write_documents`): one writer.
    serialize_case_writes()
    stored = None
    if term.pk:
        stored = Term.objects.filter(pk=term.pk).values_list("patterns", "name", "slug").first()
    renamed = stored is not None and (stored[1], stored[2]) != (term.name, term.slug)
    term.description = unix_newlines(term.description)
    shown_before = _document_digests(_cases_using([term.pk])) if renamed else {}
    term.save()
    if term.facet in ALIAS_FACETS:
        relink_aliases()
    used_by = set(_cases_using([term.pk]))
    rederived: list[str] = []
    if term.facet == Facet.ERROR_CODE and list(term.patterns) != list(stored[0] if stored else []):
        rederived = rederive_error_code(term)
        used_by |= set(rederived)
        history.record_many(rederived, user=user, reason=f"error code {term.name}: match patterns changed")
    if renamed:
        assert stored is not None
        shown_before = {case_id: d for case_id, d in shown_before.items() if case_id not in rederived}
        _record_document_changes(shown_before, user=user, reason=f"term renamed: {stored[1]} -> {term.name}")
    refresh_derived(sorted(used_by))
    return term


def rederive_error_code(term: Term) -> list[str]:
    """Bring every case's use of the error code `term` in step with its patterns: a case
    whose scanned text (`codes.case_text`) they match gets it as derived, a case it was
    derived for that they no longer match loses it; a code a case states stays. The
    changed cases' error codes are rewritten stated first, then derived in vocabulary
    order, as import writes them, and their `modified` time moves (their documents changed:
    the change feed lists them, their history rows take that time, mirrors refetch them, an
    `If-Match` read before is stale). Returns the changed case ids (sorted); the caller
    refreshes derived data and records history. Queries: 4, plus 2 per changed case and 1
    when any changed. Time: one RE2 scan of each case's text (linear in its length)."""
    vocabulary = CodeVocabulary.load()
    links = dict(CaseTerm.objects.filter(term=term).values_list("case_id", "derived"))
    changed: list[str] = []
    for case_id, title, summary, symptoms, detection in Case.objects.order_by("id").values_list(
        "id", "title", "summary", "symptoms_description", "detection"
    ):
        text = case_text(
            {
                "title": title,
                "summary": summary,
                "symptoms": {"description": symptoms},
                "detection": detection,
            }
        )
        shows = vocabulary.shows(term.name, text)
        if (case_id not in links and shows) or (links.get(case_id) and not shows):
            changed.append(case_id)
    codes = {t.name: t for t in Term.objects.filter(facet=Facet.ERROR_CODE)}
    for case_id in changed:
        rows = list(
            CaseTerm.objects.filter(case_id=case_id, term__facet=Facet.ERROR_CODE).select_related("term")
        )
        stated = [row.term.name for row in rows if not row.derived]
        derived = {row.term.name for row in rows if row.derived} ^ {term.name}
        CaseTerm.objects.filter(id__in=[row.id for row in rows]).delete()
        CaseTerm.objects.bulk_create(
            CaseTerm(case_id=case_id, term=codes[name], position=CODE_POSITION + i, derived=name in derived)
            for i, name in enumerate([*stated, *vocabulary.order(derived)])
        )
    if changed:
        Case.objects.filter(id__in=changed).update(modified=timezone.now())
    return changed
