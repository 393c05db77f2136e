"""`make bench`'s floor reads neither a database nor the cache: its ratios say what an
endpoint costs above the server and Django (bench/run.py `FLOOR`). `/healthz`, the floor
before, checks every database alias and makes a cache round trip."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from django.core.cache import caches
from django.db import connections
from django.test.utils import CaptureQueriesContext

from tests.tooling.test_bench_report import bench_run

pytestmark = pytest.mark.django_db

CACHE_METHODS = (
    "get",
    "get_many",
    "set",
    "set_many",
    "add",
    "delete",
    "delete_many",
    "incr",
    "touch",
    "has_key",
)


def test_the_floor_answers_without_a_query_or_a_cache_call(client, monkeypatch):
    run = bench_run()
    [(name, method, path, body, content_type)] = [e for e in run.ENDPOINTS if e[0] == run.FLOOR]
    assert run.ENDPOINTS[0][0] == name == "floor /robots.txt"
    assert (method, path, body, content_type) == ("GET", "/robots.txt", None, None)
    calls: list[str] = []
    cache = caches["default"]
    for attribute in CACHE_METHODS:
        monkeypatch.setattr(cache, attribute, lambda *a, _name=attribute, **k: calls.append(_name))
    with ExitStack() as stack:
        captured = {
            alias: stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections
        }
        response = client.get(path)
    assert response.status_code == 200
    assert {alias: len(queries) for alias, queries in captured.items()} == dict.fromkeys(connections, 0)
    assert calls == []


def test_healthz_is_measured_as_an_endpoint_of_its_own(client):
    run = bench_run()
    [health] = [e for e in run.ENDPOINTS if e[0] == run.HEALTH]
    assert health == ("health check /healthz", "GET", "/healthz", None, None)
    # What makes it no floor: it asks every database alias.
    with ExitStack() as stack:
        captured = {
            alias: stack.enter_context(CaptureQueriesContext(connections[alias])) for alias in connections
        }
        assert client.get("/healthz").status_code == 200
    assert all(len(queries) >= 1 for queries in captured.values()), captured
