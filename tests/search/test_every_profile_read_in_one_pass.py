"""Reading every published profile (`profiles.published` without `before`) scans the term
links once and keeps the published cases' in their order, with Python's cyclic garbage
collector paused meanwhile: the same profiles as reading each published case's links in
SQL, and the collector as it was before, whatever happens."""

from __future__ import annotations

import gc

import pytest

from incidents.models import Case, CaseTerm
from incidents.search import profiles

pytestmark = pytest.mark.django_db


def links_written_backwards(case_id: str) -> list[int]:
    """Write `case_id`'s term links again, last position first (a scan then meets them out
    of order); returns the term ids in position order."""
    rows = list(CaseTerm.objects.filter(case_id=case_id).order_by("position"))
    CaseTerm.objects.filter(case_id=case_id).delete()
    for row in reversed(rows):
        row.pk = None
        row.save()
    return [row.term_id for row in rows]


def test_terms_keep_each_case_order_and_only_published_cases_are_read():
    case_id = "IL-0428"
    in_order = links_written_backwards(case_id)
    assert len(in_order) > 5
    scanned = list(CaseTerm.objects.order_by("id").filter(case_id=case_id).values_list("term_id", flat=True))
    assert scanned == in_order[::-1]  # the table holds them backwards now
    withdrawn = Case.objects.published().exclude(id=case_id).order_by("id").first()
    assert withdrawn is not None
    Case.objects.filter(id=withdrawn.id).update(status=Case.Status.RETRACTED)

    every = {p.id: p for p in profiles.published()}
    expected = profiles._terms_by_case(Case.objects.published())  # ORDER BY position in SQL

    assert withdrawn.id not in every
    assert set(every) == set(Case.objects.published().values_list("id", flat=True))
    for cid, profile in every.items():
        # `_with_terms` adds the root-cause category after them where a case's links lack it.
        assert list(profile.terms.items())[: len(expected[cid])] == list(expected[cid].items()), cid
    # The case written backwards reads in position order, as in SQL.
    names = list(every[case_id].terms)
    assert names[: len(expected[case_id])] == list(expected[case_id])
    assert len(set(names)) == len(names)


def test_the_collector_is_as_it_was_after_the_read_even_when_it_fails(monkeypatch):
    assert gc.isenabled()
    seen: list[bool] = []
    real_stored = profiles._stored

    def stored(*args, **kwargs):
        seen.append(gc.isenabled())
        return real_stored(*args, **kwargs)

    monkeypatch.setattr(profiles, "_stored", stored)
    assert len(profiles.published()) > 100
    assert seen == [False]  # paused while the rows were read
    assert gc.isenabled()

    def failing(*args, **kwargs):
        raise RuntimeError("connection lost")

    monkeypatch.setattr(profiles, "_stored", failing)
    with pytest.raises(RuntimeError):
        profiles.published()
    assert gc.isenabled()

    gc.disable()
    try:
        monkeypatch.setattr(profiles, "_stored", stored)
        profiles.published()
        assert not gc.isenabled()  # a caller that paused it keeps it paused
    finally:
        gc.enable()
