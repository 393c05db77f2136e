"""A write whose transaction rolls back leaves no passage vectors of what it wrote behind.

The writing connection reads its own uncommitted rows: vectors it reads after `changed()`
(under the generation that write made) hold the edit. Once rolled back, no link names the
edited case again, so a later write's re-read (`with_cases_read_again`) must not start from
them: it would keep the rolled-back passages for good."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from django.db import transaction

from incidents.search import semantic
from incidents.services import save_case_document
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


class RolledBack(Exception):
    pass


def test_vectors_read_inside_a_write_that_rolled_back_are_not_built_upon(store_cache_on):
    before = semantic.process_vectors()
    edited = copy.deepcopy(load_fixture("IL-0428"))
    edited["summary"] = "Edited: the job hung in an all-reduce once the new racks joined the fabric."
    with pytest.raises(RolledBack), transaction.atomic():
        assert save_case_document(edited, reason="test edit").changed
        inside = semantic.process_vectors()  # this connection sees the edit
        row = inside.ids.index("IL-0428")
        assert not np.array_equal(
            inside.matrix[inside.owner == row], before.matrix[before.owner == before.ids.index("IL-0428")]
        )
        raise RolledBack
    other = copy.deepcopy(load_fixture("IL-0429"))
    other["summary"] = "Edited too: the second case's summary, saved after the rollback."
    assert save_case_document(other, reason="test edit").changed
    after = semantic.process_vectors()
    read = semantic.load_vectors()
    assert after.ids == read.ids
    assert np.array_equal(after.owner, read.owner)
    assert np.array_equal(after.matrix, read.matrix)
    assert after.scale is not None and read.scale is not None
    assert np.array_equal(after.scale, read.scale)
