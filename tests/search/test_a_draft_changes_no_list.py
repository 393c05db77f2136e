"""Saving a draft (a public proposal, an editor's work in progress) changes no similar-case
list, so it does not score every published case (O(N): seconds at 100,000 cases); a case
leaving the published ones still leaves every list it was in."""

from __future__ import annotations

import copy

import pytest

from incidents.search import profiles
from incidents.search.models import CaseNeighbour
from incidents.services import save_case_document
from tests.conftest import load_fixture
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def every_row() -> list[tuple]:
    return list(CaseNeighbour.objects.order_by("id").values_list("id", "case_id", "neighbour_id", "score"))


def test_a_new_draft_reads_no_published_profile_and_leaves_every_list(monkeypatch):
    before = every_row()

    def every_published(*args, **kwargs):
        raise AssertionError("a draft scored every published case")

    monkeypatch.setattr(profiles, "published", every_published)
    draft = synthetic_case(21, status="draft", title="Draft: vLLM server hangs in NCCL all-reduce")
    assert save_case_document(draft, reason="proposal").changed

    assert every_row() == before
    assert not CaseNeighbour.objects.filter(case_id="IL-900021").exists()


def test_a_published_case_made_a_draft_leaves_every_list():
    assert CaseNeighbour.objects.filter(neighbour_id="IL-0463").exists()
    document = copy.deepcopy(load_fixture("IL-0463"))
    document["status"] = "draft"
    assert save_case_document(document, reason="back to draft").changed

    assert not CaseNeighbour.objects.filter(neighbour_id="IL-0463").exists()
    assert not CaseNeighbour.objects.filter(case_id="IL-0463").exists()
    # The lists it left were filled again from the other cases.
    assert CaseNeighbour.objects.filter(case_id="IL-0464").count() == 10
