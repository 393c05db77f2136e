"""An increment (`similarity.update_neighbours`) reads only the stored lists it may change:
what it stores must be what reading every list gives."""

from __future__ import annotations

import pytest
from django.db import transaction

from incidents.models import Case
from incidents.search import similarity
from incidents.search.models import CaseNeighbour
from incidents.search.similarity import NEIGHBOUR_COLUMNS, update_neighbours

pytestmark = pytest.mark.django_db


def every_list(corpus, changed, changed_rows, *, partial=False):
    """The reference: every published case's stored list outside `changed`."""
    stored: dict[str, list] = {owner: [] for owner in corpus.profiles if owner not in changed}
    rows = CaseNeighbour.objects.order_by("case_id", "rank").values_list(
        "case_id", "neighbour_id", "score", "vocabulary_score", "text_score", "semantic_score"
    )
    for owner, other, *parts in rows:
        if owner in stored:
            stored[owner].append((other, tuple(parts)))
    return stored


def stored_after(case_ids: list[str], monkeypatch, *, read_every_list: bool) -> list[tuple]:
    """The neighbour rows after the increment, rolled back afterwards."""
    with transaction.atomic():
        if read_every_list:
            monkeypatch.setattr(similarity, "_lists_that_may_change", every_list)
        update_neighbours(case_ids)
        monkeypatch.undo()
        rows = sorted(CaseNeighbour.objects.values_list(*NEIGHBOUR_COLUMNS))
        transaction.set_rollback(True)
    return rows


def retell(case_id: str, as_case: str) -> None:
    """Give `case_id` the account of `as_case` (written directly: no neighbour update)."""
    other = Case.objects.get(id=as_case)
    Case.objects.filter(id=case_id).update(
        title=other.title, summary=other.summary, symptoms_description=other.symptoms_description
    )


@pytest.mark.parametrize(
    "scenario",
    [
        "a case retold enters other lists and leaves its old ones",
        "a case retracted",
        "a neighbour unpublished",
    ],
)
def test_the_lists_stored_equal_those_of_reading_every_list(scenario, monkeypatch):
    before = sorted(CaseNeighbour.objects.values_list(*NEIGHBOUR_COLUMNS))
    if scenario.startswith("a case retold"):
        retell("IL-0447", as_case="IL-0463")
        changed = ["IL-0447"]
    elif scenario == "a case retracted":
        Case.objects.filter(id="IL-0463").update(status=Case.Status.RETRACTED)
        changed = ["IL-0463"]
    else:
        # Unpublished without its lists updated; the next increment (of an unrelated case)
        # takes it out of every list that holds it.
        Case.objects.filter(id="IL-0464").update(status=Case.Status.RETRACTED)
        changed = ["IL-0428"]
    expected = stored_after(changed, monkeypatch, read_every_list=True)
    assert stored_after(changed, monkeypatch, read_every_list=False) == expected
    # The increment changed lists other than the changed case's own: the comparison is not
    # of two unchanged tables.
    heads = {row[:4] for row in before} ^ {row[:4] for row in expected}  # owner, neighbour, rank, score
    owners = {row[0] for row in heads} - set(changed)
    assert owners
