"""A case's organization and accelerator links: the terms its strings name (`Resolver`),
and bringing every case's links in step with them (`relink_aliases`).
"""

from __future__ import annotations

from ..models import ALIAS_FACETS, Case, CaseTerm, Term
from ..problems import CaseImportError, ImportProblem
from ..selectors.spelling import spelling_key
from ..validation import alias_references
from .positions import ALIAS_POSITION


class Resolver:
    """(facet, spelling) -> the organization or accelerator term it names (spellings
    compared by `spelling_key`), from `terms`; raises KeyError for a spelling no term has
    (validation reports those first)."""

    def __init__(self, terms: list[Term]):
        self.by_spelling: dict[tuple[str, str], Term] = {}
        for term in terms:
            if term.facet in ALIAS_FACETS:
                for spelling in (term.slug, term.name, *term.synonyms):
                    self.by_spelling[(term.facet, spelling_key(spelling))] = term
        # (organization, accelerator) -> `_alias_terms`: a library names few of them, and
        # each case's were looked up again (a fiftieth of a first import).
        self.named: dict[tuple[str, str | None], list[Term]] = {}

    def __call__(self, facet: str, spelling: str) -> Term:
        return self.by_spelling[(facet, spelling_key(spelling))]


def _alias_terms(organization: str, accelerator: str | None, resolve: Resolver) -> list[Term]:
    """The terms a case's organization and accelerator strings name: the organization, the
    accelerator and, for a model, its family (so a filter on the family finds it). The
    list is shared by the cases naming the same two: not to be changed."""
    named = resolve.named.get((organization, accelerator))
    if named is None:
        named = resolve.named[(organization, accelerator)] = _named_terms(organization, accelerator, resolve)
    return named


def _named_terms(organization: str, accelerator: str | None, resolve: Resolver) -> list[Term]:
    document = {"organization": organization, "environment": {"accelerator": accelerator}}
    found: list[Term] = []
    for facet, spelling, _path in alias_references(document):
        term = resolve(facet, spelling)
        found.append(term)
        if term.family_id is not None:
            found.append(term.family)  # type: ignore[arg-type]
    return list(dict.fromkeys(found))


def relink_aliases(resolve: Resolver | None = None) -> int:
    """Bring every case's organization and accelerator links in step with its strings and
    the stored vocabulary: a few queries whatever changed. Returns how many cases changed.

    Raises CaseImportError naming the case when a stored string no longer resolves (a
    vocabulary import that dropped a spelling cases use).
    """
    if resolve is None:
        resolve = Resolver(list(Term.objects.filter(facet__in=ALIAS_FACETS).select_related("family")))
    have: dict[str, set[int]] = {}
    for case_id, term_id in CaseTerm.objects.filter(term__facet__in=ALIAS_FACETS).values_list(
        "case_id", "term_id"
    ):
        have.setdefault(case_id, set()).add(term_id)
    problems: list[ImportProblem] = []
    changed: dict[str, list[Term]] = {}
    for case_id, organization, accelerator in Case.objects.values_list("id", "organization", "accelerator"):
        try:
            wanted = _alias_terms(organization, accelerator, resolve)
        except KeyError:
            problems.append(
                ImportProblem(case_id, "$", "its organization or accelerator is no longer in the vocabulary")
            )
            continue
        if {t.id for t in wanted} != have.get(case_id, set()):
            changed[case_id] = wanted
    if problems:
        raise CaseImportError(problems)
    CaseTerm.objects.filter(case_id__in=list(changed), term__facet__in=ALIAS_FACETS).delete()
    CaseTerm.objects.bulk_create(
        CaseTerm(case_id=case_id, term=term, position=ALIAS_POSITION + i)
        for case_id, wanted in changed.items()
        for i, term in enumerate(wanted)
    )
    return len(changed)
