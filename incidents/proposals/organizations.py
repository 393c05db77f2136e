"""Which vocabulary organization a new case's proposal names, when the proposer wrote one
the vocabulary lacked (`Proposal.organization_named`)."""

from __future__ import annotations

from incidents.models import Facet, Term
from incidents.selectors.spelling import resolve_term

from .models import Proposal


def organization_term(name: str) -> Term | None:
    """The vocabulary's organization `name` spells (its name, slug or a synonym, in any
    letter case), or None. One query."""
    return resolve_term(name, list(Term.objects.of(Facet.ORGANIZATION).only("slug", "name", "synonyms")))


def organization_for(proposal: Proposal) -> Term | None:
    """The organization a proposal's `organization_named` is: the one a reviewer chose
    (`organization_term`), else the one the name spells now (an editor may have added it, or
    the name as a synonym, since it was sent). None when neither, or when nothing was named.
    At most one query."""
    if not proposal.organization_named:
        return None
    if proposal.organization_term is not None:
        return proposal.organization_term
    return organization_term(proposal.organization_named)
