"""Several cases can share one `modified` time (a merge's queryset `.update()`, two writes in
the same microsecond). A mirror paging through `/api/changes` across such a run must still
receive every case when one of them is saved again between its pages, and `previous` must
give back the page before. The cursor is a keyset on (modified, id), the feed's whole
order, so it holds no offset among equal times for an edit to shift."""

from __future__ import annotations

import datetime

import pytest
from django.db.models import Max
from django.utils import timezone

from incidents.models import Case
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

LIMIT = 4


def stamp(moment: datetime.datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def tie_cases(import_synthetic, count: int) -> tuple[list[str], datetime.datetime, str]:
    """`count` published cases that all carry one `modified` time, as `.update()` leaves
    them; that time, and a `since` that leaves out every case written before them."""
    since = stamp(Case.objects.aggregate(newest=Max("modified"))["newest"])
    tied = import_synthetic(*(synthetic_case(n) for n in range(1, count + 1)))
    moment = timezone.now()
    Case.objects.filter(id__in=tied).update(modified=moment)
    return tied, moment, since


def ids(body: dict) -> list[str]:
    return [row["id"] for row in body["results"]]


def test_no_case_of_a_tie_is_lost_when_tied_cases_are_saved_between_pages(client, import_synthetic):
    tied, _, since = tie_cases(import_synthetic, 12)
    # One newer case above the run, so that the first page ends inside it.
    (newer,) = import_synthetic(synthetic_case(13))
    before = {*tied, newer}

    seen: list[str] = []
    edited: list[str] = []
    url: str | None = f"/api/changes?limit={LIMIT}&since={since}"
    first = None
    while url:
        body = client.get(url).json()
        first = first or body
        seen += ids(body)
        # An editor saves a tied case the mirror has just received: it leaves the run for the
        # top of the feed, and every case after it in the run moves up one place.
        if still_tied := [case_id for case_id in ids(body) if case_id in tied and case_id not in edited]:
            Case.objects.get(id=still_tied[0]).save(update_fields=["modified"])
            edited.append(still_tied[0])
        url = body["next"]
    assert first is not None and ids(first)[0] == newer
    newest = first["results"][0]["modified"]
    again = client.get(f"/api/changes?limit=1000&since={newest}").json()

    assert sorted(before - set(seen)) == []
    assert len(seen) == len(set(seen)) == 13
    assert set(ids(again)) == set(edited)


def test_previous_from_a_page_inside_a_tie_gives_the_page_before_exactly(client, import_synthetic):
    _, moment, since = tie_cases(import_synthetic, 12)
    pages: list[list[str]] = []
    bodies: list[dict] = []
    url: str | None = f"/api/changes?limit={LIMIT}&since={since}"
    while url:
        body = client.get(url).json()
        bodies.append(body)
        pages.append(ids(body))
        url = body["next"]
    # Newest first: within one time, the higher id first.
    assert pages == [
        ["IL-900012", "IL-900011", "IL-900010", "IL-900009"],
        ["IL-900008", "IL-900007", "IL-900006", "IL-900005"],
        ["IL-900004", "IL-900003", "IL-900002", "IL-900001"],
    ]
    assert bodies[0]["previous"] is None
    assert bodies[-1]["next"] is None
    for k in (1, 2):
        before = client.get(bodies[k]["previous"]).json()
        assert ids(before) == pages[k - 1], k
        assert [row["modified"] for row in before["results"]] == [stamp(moment)] * LIMIT
        # And forward again from there: the same page k.
        assert ids(client.get(before["next"]).json()) == pages[k], k
    assert client.get(bodies[1]["previous"]).json()["previous"] is None
