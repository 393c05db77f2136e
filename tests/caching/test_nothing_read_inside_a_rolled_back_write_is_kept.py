"""What a connection reads after its own write, before that write commits, is never kept
for others: the generation the write made stays current if it rolls back, and anything
filed under it would be served (the edit that never happened) until the next write.

The writer still reads its own edit (`cached` and `answer` compute it, `local` keeps it for
that connection only), and between writes the reads are kept as before."""

from __future__ import annotations

import copy

import numpy as np
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from incidents import selectors, store_cache
from incidents.search import semantic
from incidents.services import save_case_document
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db

EDITED_TITLE = "Hangs on 384 A100 GPUs (an edit that rolls back)"


class RolledBack(Exception):
    pass


def edit(case_id: str) -> None:
    document = copy.deepcopy(load_fixture(case_id))
    document["title"] = EDITED_TITLE
    document["summary"] = "Edited: the job hung in an all-reduce once the new racks joined the fabric."
    assert save_case_document(document, reason="test edit").changed


def test_answers_read_inside_a_rolled_back_write_are_not_served_after_it(client, store_cache_on):
    title = load_fixture("IL-0428")["title"]
    version = selectors.store_version()
    with pytest.raises(RolledBack), transaction.atomic():
        edit("IL-0428")
        # The writer reads its own edit, each time (nothing of it is kept).
        for _ in range(2):
            assert client.get("/api/cases/IL-0428").json()["title"] == EDITED_TITLE
            assert EDITED_TITLE in client.get("/cases/IL-0428").content.decode()
            assert selectors.store_version() != version
        raise RolledBack
    assert client.get("/api/cases/IL-0428").json()["title"] == title
    page = client.get("/cases/IL-0428").content.decode()
    assert title in page and EDITED_TITLE not in page
    assert selectors.store_version() == version


def test_after_the_rollback_the_reads_are_kept_again(client, store_cache_on):
    with pytest.raises(RolledBack), transaction.atomic():
        edit("IL-0428")
        client.get("/api/cases/IL-0428")
        raise RolledBack
    client.get("/api/cases/IL-0428")
    selectors.store_version()
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/api/cases/IL-0428").json()["title"] == load_fixture("IL-0428")["title"]
        selectors.store_version()
    assert captured.captured_queries == []


def test_vectors_read_inside_a_rolled_back_write_are_not_served_after_it(store_cache_on):
    before = semantic.process_vectors()
    with pytest.raises(RolledBack), transaction.atomic():
        edit("IL-0428")
        inside = semantic.process_vectors()
        row = inside.ids.index("IL-0428")
        assert not np.array_equal(
            inside.matrix[inside.owner == row], before.matrix[before.owner == before.ids.index("IL-0428")]
        )
        raise RolledBack
    after = semantic.process_vectors()
    read = semantic.load_vectors()
    assert after.ids == read.ids
    assert np.array_equal(after.owner, read.owner)
    assert np.array_equal(after.matrix, read.matrix)


def test_a_write_committed_in_a_test_transaction_is_read_fresh_then_kept(
    client, store_cache_on, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        edit("IL-0428")
    assert client.get("/api/cases/IL-0428").json()["title"] == EDITED_TITLE
    token = store_cache.generation()
    with CaptureQueriesContext(connection) as captured:
        assert client.get("/api/cases/IL-0428").json()["title"] == EDITED_TITLE
    assert captured.captured_queries == []
    assert store_cache.generation() == token
