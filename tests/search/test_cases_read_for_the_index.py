"""`text.cases_for_index` reads cases back for the index and the profiles with their terms
attached as `Case.linked_terms` (no link objects). Every facet's terms must come out as
the case page reads them (`with_summary`, prefetched links): in link order, which decides
a case's workload, organization and accelerator (the first term of their facet)."""

from __future__ import annotations

import pytest

from incidents.models import Case, CaseTerm, Facet, Term
from incidents.search.profiles import text_words
from incidents.search.text import cases_for_index
from tests.conftest import fixture_ids

pytestmark = pytest.mark.django_db


def names(terms: list[Term]) -> list[str]:
    return [term.name for term in terms]


def test_every_facet_in_link_order_as_the_case_page_reads_it():
    ids = fixture_ids()
    read = {case.id: case for case in cases_for_index(ids, Term.objects.in_bulk())}
    assert sorted(read) == ids
    paged = {case.id: case for case in Case.objects.filter(id__in=ids).with_summary()}
    compared = 0
    for case_id in ids:
        for facet in Facet:
            assert names(read[case_id].terms_of(facet)) == names(paged[case_id].terms_of(facet)), (
                case_id,
                facet,
            )
            compared += len(paged[case_id].terms_of(facet))
        assert read[case_id].root_cause_category == paged[case_id].root_cause_category
        assert read[case_id].workload == paged[case_id].workload
        assert read[case_id].accelerator_term == paged[case_id].accelerator_term
    assert compared > 10 * len(ids)  # the fixtures carry many terms a case


def test_several_terms_of_one_facet_keep_their_link_order():
    case_id = next(
        c for c in fixture_ids() if CaseTerm.objects.filter(case_id=c, term__facet=Facet.SYMPTOM).count() >= 2
    )
    links = list(CaseTerm.objects.filter(case_id=case_id, term__facet=Facet.SYMPTOM).order_by("position"))
    # Reverse the symptoms' positions: the order read must follow.
    for link, position in zip(links, reversed([link.position for link in links]), strict=True):
        CaseTerm.objects.filter(pk=link.pk).update(position=position + 1000)
    [case] = cases_for_index([case_id], Term.objects.in_bulk())
    assert names(case.terms_of(Facet.SYMPTOM)) == [link.term.name for link in reversed(links)]


def test_a_case_without_links_and_an_unknown_id():
    case_id = fixture_ids()[0]
    CaseTerm.objects.filter(case_id=case_id).exclude(term__facet=Facet.ROOT_CAUSE).delete()
    read = cases_for_index([case_id, "IL-999999"], Term.objects.in_bulk())
    assert [case.id for case in read] == [case_id]
    assert read[0].topics == [] and read[0].components == []


def test_refreshing_a_case_drops_its_attached_terms():
    case_id = next(
        c for c in fixture_ids() if CaseTerm.objects.filter(case_id=c, term__facet=Facet.TOPIC).exists()
    )
    [case] = cases_for_index([case_id], Term.objects.in_bulk())
    assert case.topics
    CaseTerm.objects.filter(case_id=case_id, term__facet=Facet.TOPIC).delete()
    # A refresh of other fields keeps them (Django keeps prefetched links then too).
    case.refresh_from_db(fields=["status"])
    assert case.linked_terms is not None and case.topics
    case.refresh_from_db()
    assert case.linked_terms is None
    assert case.topics == []


def test_the_words_that_count():
    # No stop words ("a", "of", "in", "the", "all"), numbers or single letters.
    assert text_words("A NCCL hang: rank 7 of 512 hangs; x y in the all-reduce") == [
        ("nccl", "nccl"),
        ("hang", "hang"),
        ("rank", "rank"),
        ("hang", "hangs"),
        ("reduce", "reduce"),
    ]
