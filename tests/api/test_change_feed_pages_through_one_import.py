"""A mirror pages through `/api/changes` right after a bulk import, and a case it has
already received is edited meanwhile: no case is lost, and `previous` links give the pages
before. (The cursor is a keyset on (modified, id); runs of equal times are tested in
test_change_feed_keeps_its_place_in_a_run_of_equal_times.py.)"""

from __future__ import annotations

import pytest

from incidents.models import Case
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

LIMIT = 7


def feed_order() -> list[str]:
    return list(Case.objects.visible().order_by("-modified", "-id").values_list("id", flat=True))


def follow(client, url: str) -> tuple[list[str], list[dict]]:
    ids: list[str] = []
    bodies: list[dict] = []
    while url:
        body = client.get(url).json()
        bodies.append(body)
        ids += [row["id"] for row in body["results"]]
        url = body["next"]
    return ids, bodies


def test_a_case_edited_while_a_mirror_pages_is_not_lost(client, import_synthetic):
    imported = import_synthetic(*(synthetic_case(n) for n in range(1, 25)))
    everything = set(feed_order())
    first = client.get(f"/api/changes?limit={LIMIT}").json()
    newest = first["results"][0]["modified"]
    seen = [row["id"] for row in first["results"]]
    second = client.get(first["next"]).json()
    seen += [row["id"] for row in second["results"]]
    # An editor saves a case the mirror has already received: it moves to the top.
    edited = Case.objects.get(id=seen[2])
    edited.save(update_fields=["modified"])
    rest, _ = follow(client, second["next"])
    again, _ = follow(client, f"/api/changes?limit={LIMIT}&since={newest}")
    assert set(imported) <= everything
    assert everything <= set(seen + rest + again)
    assert edited.id in again


def test_previous_links_give_the_pages_before(client, import_synthetic):
    import_synthetic(*(synthetic_case(n) for n in range(1, 25)))
    ids, bodies = follow(client, f"/api/changes?limit={LIMIT}")
    assert ids == feed_order()
    pages = [[row["id"] for row in body["results"]] for body in bodies]
    assert len(pages) > 3
    for k in range(1, len(bodies)):
        before = client.get(bodies[k]["previous"]).json()
        assert [row["id"] for row in before["results"]] == pages[k - 1], k
