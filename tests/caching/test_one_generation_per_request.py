"""A request reads the store generation from the shared cache once
(`store_cache.one_generation`, entered by `StoreGenerationMiddleware`), and still never
serves what a write changed: its own write moves it to the new generation, another
process's write is seen by the next request."""

from __future__ import annotations

import copy
import datetime
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone

from incidents import store_cache
from incidents.models import Case
from incidents.services import save_case_document
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


class CountingCache:
    """The shared cache, counting its reads and those of the store generation."""

    def __init__(self) -> None:
        self.generation_reads = 0
        self.reads = 0

    def get(self, key: str, *args: Any) -> Any:
        self.reads += 1
        if key == store_cache.GENERATION_KEY:
            self.generation_reads += 1
        return cache.get(key, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(cache, name)


@pytest.fixture
def counting(monkeypatch, store_cache_on) -> CountingCache:
    counter = CountingCache()
    monkeypatch.setattr(store_cache, "cache", counter)
    return counter


def test_a_request_reads_the_generation_once(client, counting):
    for path in ("/api/cases/IL-0428", "/cases/IL-0428", "/api/cases/?q=nccl+timeout", "/cases/?q=xid+79"):
        # The first request fills the caches (a value built in the process reads the shared
        # generation once more, `store_cache.local`); the next reads it once.
        client.get(path)
        counting.generation_reads = 0
        assert client.get(path).status_code == 200
        assert counting.generation_reads == 1, path
    # Outside a request each read asks the cache (a kept answer: store version, answer).
    counting.generation_reads = 0
    store_cache.generation()
    store_cache.generation()
    assert counting.generation_reads == 2


def test_a_write_within_the_request_is_answered_with_its_own_generation(counting):
    with store_cache.one_generation():
        before = store_cache.generation()
        store_cache.changed()
        after = store_cache.generation()
        assert after != before
        assert after == cache.get(store_cache.GENERATION_KEY)


def test_another_writers_generation_is_seen_by_the_next_request(counting):
    with store_cache.one_generation():
        first = store_cache.generation()
        cache.set(store_cache.GENERATION_KEY, "written-by-another-process")
        assert store_cache.generation() == first  # this request keeps what it read
    with store_cache.one_generation():
        assert store_cache.generation() == "written-by-another-process"
    assert store_cache.generation() == "written-by-another-process"


def test_an_edit_between_requests_is_served_at_once(client, counting):
    first = client.get("/api/cases/IL-0428").json()
    document = copy.deepcopy(load_fixture("IL-0428"))
    document["title"] = first["title"] + " (edited)"
    assert save_case_document(document, reason="test edit").changed
    assert client.get("/api/cases/IL-0428").json()["title"] == document["title"]


def test_a_long_request_uses_a_newer_process_value_instead_of_rebuilding_it(counting):
    computed: list[str] = []

    def compute(label: str):
        def build() -> str:
            computed.append(label)
            return label

        return build

    with store_cache.one_generation():
        assert store_cache.local("test-value", compute("first")) == "first"
        # Meanwhile another process writes, and another thread of this one rebuilds the value.
        cache.set(store_cache.GENERATION_KEY, "newer")
        with store_cache.one_generation():
            assert store_cache.local("test-value", compute("newer")) == "newer"
        # This request still remembers the older generation: it takes the newer value as it
        # is, rather than rebuilding it and filing it under its older token.
        assert store_cache.local("test-value", compute("again")) == "newer"
    assert computed == ["first", "newer"]
    with store_cache.one_generation():
        assert store_cache.local("test-value", compute("later")) == "newer"
    assert computed == ["first", "newer"]


def test_a_kept_case_answer_reads_the_shared_cache_two_or_three_times(
    client, counting, django_capture_on_commit_callbacks
):
    """The generation and the kept answer: the store version behind the ETag is kept in the
    process per generation (it was a third read), and still moves with every write. The
    API's answer reads the case's own `modified` too (its ETag carries the case's version,
    which a write's If-Match checks alone), kept per generation in the shared cache."""
    for path, reads in (("/api/cases/IL-0428", 3), ("/cases/IL-0428", 2)):
        first = client.get(path)
        counting.reads = 0
        again = client.get(path)
        assert again.status_code == 200 and again["ETag"] == first["ETag"]
        assert counting.reads == reads, path
    before = client.get("/api/cases/IL-0428")["ETag"]
    document = copy.deepcopy(load_fixture("IL-0428"))
    document["title"] += " (edited)"
    with django_capture_on_commit_callbacks(execute=True):  # committed, as between requests
        assert save_case_document(document, reason="test edit").changed
    assert client.get("/api/cases/IL-0428")["ETag"] != before
    # A write by another process: it moves the shared generation, and the next request
    # reads the version again.
    kept = client.get("/api/cases/IL-0429")["ETag"]
    Case.objects.filter(id="IL-0429").update(modified=timezone.now() + datetime.timedelta(days=1))
    assert client.get("/api/cases/IL-0429")["ETag"] == kept  # nothing said the store changed
    cache.set(store_cache.GENERATION_KEY, "written-by-another-process")
    assert client.get("/api/cases/IL-0429")["ETag"] != kept


def test_a_request_older_than_another_processs_write_keeps_no_stale_version(client, counting):
    """A request that remembers the generation before another process's write, and asks for
    the store version after it, files the version of the database as it is now under the
    newer generation: the next request's ETag follows the write."""
    from incidents.selectors.version import store_version

    before = store_version()  # in the shared cache too, under this generation
    store_cache._local.pop("store-version")  # as in a worker that has not read it yet
    with store_cache.one_generation():
        store_cache.generation()  # this request's generation, before the write
        Case.objects.filter(id="IL-0429").update(modified=timezone.now() + datetime.timedelta(days=3))
        cache.set(store_cache.GENERATION_KEY, "written-by-another-process")
        store_version()
    with store_cache.one_generation():
        after = store_version()
    assert after.last_modified is not None and before.last_modified is not None
    assert after.last_modified > before.last_modified
    assert after.last_modified == Case.objects.get(id="IL-0429").modified
