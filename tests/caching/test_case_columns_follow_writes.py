"""The case columns a worker holds for search (`search.case_columns`: every case's status,
date, root cause, accelerator count and term links) are never used stale: after an edit, a
retraction, an import, a delete, or a write that moves term links of cases it does not
name, the next search holds what reading the database gives, array for array."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from incidents import store_cache
from incidents.models import Case, CaseTerm, Term
from incidents.search import case_columns, search_cases
from incidents.services import change_status, delete_cases, save_case_document
from incidents.workflow import REVIEWER
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def assert_current(held: case_columns.CaseColumns | None) -> case_columns.CaseColumns:
    read = case_columns.read()
    assert held is not None
    for name in (
        "sorted_ids",
        "sorted_numbers",
        "published",
        "day",
        "root_cause",
        "accelerators",
        "link_start",
        "link_term",
        "term_start",
        "term_cases",
    ):
        assert np.array_equal(getattr(held, name), getattr(read, name)), name
    assert held.terms == read.terms
    return held


def number(columns: case_columns.CaseColumns, case_id: str) -> int:
    found = columns.numbers([case_id])
    assert found is not None
    return int(found[0])


def test_after_an_edit_a_retraction_an_import_and_a_delete_the_columns_are_current(
    store_cache_on, import_synthetic
):
    search_cases(query="nccl timeout")
    before = assert_current(case_columns.held())
    assert case_columns.held() is before  # kept between searches of one generation

    edited = copy.deepcopy(load_fixture("IL-0428"))
    edited["published"] = "2001-02-03"
    edited["environment"]["accelerator_count"] = 12345
    assert save_case_document(edited, reason="test edit").changed
    after_edit = assert_current(case_columns.held())
    assert after_edit.day[number(after_edit, "IL-0428")] == 20010203
    assert after_edit.accelerators[number(after_edit, "IL-0428")] == 12345

    change_status("IL-0429", "retracted", user=make_user("rita", REVIEWER), reason="Source withdrawn")
    after_retraction = assert_current(case_columns.held())
    assert not after_retraction.published[number(after_retraction, "IL-0429")]
    assert before.published[number(before, "IL-0429")]

    (new,) = import_synthetic(synthetic_case(7))
    after_import = assert_current(case_columns.held())
    assert before.numbers([new]) is None and after_import.numbers([new]) is not None

    delete_cases(["IL-0431"])
    after_delete = assert_current(case_columns.held())
    assert after_delete.numbers(["IL-0431"]) is None
    assert after_delete.size == Case.objects.count()


def test_links_moved_on_cases_a_write_does_not_name_are_read_again(store_cache_on):
    """A vocabulary import re-links the organizations and accelerators of every case whose
    strings resolve differently (`services.relink_aliases`) but names only the cases it
    imported: the columns keep nothing of the generation before, whatever a write names."""
    before = assert_current(case_columns.held())
    term = Term.objects.filter(facet="component").exclude(case_links__case_id="IL-0430").first()
    assert term is not None
    CaseTerm.objects.create(case_id="IL-0430", term=term, position=900)
    store_cache.changed(["IL-0428"])
    after = assert_current(case_columns.held())
    assert after is not before
    assert (
        term.id
        in after.link_term[
            after.link_start[number(after, "IL-0430")] : after.link_start[number(after, "IL-0430") + 1]
        ]
    )
    assert (
        after.carrying(term.id)[number(after, "IL-0430")]
        and not before.carrying(term.id)[number(before, "IL-0430")]
    )


def test_with_the_store_cache_off_nothing_is_held(settings):
    settings.STORE_CACHE = False
    assert case_columns.held() is None
