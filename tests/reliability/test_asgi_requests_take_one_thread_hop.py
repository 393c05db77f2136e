"""Under ASGI a request's middleware and view run together in one thread
(`incidentlib.asgi_handler.OneHopASGIHandler`): Django's own handler switched between the
event loop and a thread four times a request here. The answers stay those of the site and
the API, errors and streamed export included."""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

import pytest
from asgiref import sync
from asgiref.sync import iscoroutinefunction
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.core.signals import request_finished
from django.db.backends.signals import connection_created

from incidentlib.asgi_handler import OneHopASGIHandler
from tests.reliability.asgi_exchange import asgi_messages

# The handler runs each request in a thread of its own: it sees committed rows only.
pytestmark = pytest.mark.django_db(transaction=True)


def call(app: Any, path: str, query: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """One GET through the ASGI application `app`: (status, headers, whole body)."""
    sent = asgi_messages(app, path, query)
    start = sent[0]
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent[1:])
    return start["status"], headers, body


@pytest.fixture
def hops(monkeypatch) -> Counter:
    """Switches between the event loop and a thread, counted as they are made."""
    counted: Counter = Counter()
    for kind in (sync.SyncToAsync, sync.AsyncToSync):
        original = kind.__call__

        def counting(self, *args, _original=original, _kind=kind.__name__, **kwargs):
            counted[_kind] += 1
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(kind, "__call__", counting)
    return counted


def test_the_middleware_chain_is_built_synchronous_with_nothing_adapted(monkeypatch):
    adapted: list[str] = []
    original = BaseHandler.adapt_method_mode

    def spy(self, is_async, method, method_is_async=None, debug=False, name=None):
        if method_is_async is None:
            method_is_async = iscoroutinefunction(method)
        if is_async != method_is_async:
            adapted.append(name or getattr(method, "__qualname__", repr(method)))
        return original(self, is_async, method, method_is_async, debug, name)

    monkeypatch.setattr(BaseHandler, "adapt_method_mode", spy)
    ASGIHandler()
    assert adapted, "Django's handler adapts some of this chain (what the one hop saves)"
    adapted.clear()
    handler = OneHopASGIHandler()
    assert adapted == []
    assert not iscoroutinefunction(handler._middleware_chain)  # type: ignore[attr-defined]


def test_a_request_switches_between_loop_and_thread_three_times_fewer(transactional_cases, hops):
    django_handler, one_hop = ASGIHandler(), OneHopASGIHandler()
    hops.clear()
    assert call(django_handler, "/api/cases/IL-0428")[0] == 200
    theirs = dict(hops)
    hops.clear()
    assert call(one_hop, "/api/cases/IL-0428")[0] == 200
    # request_started's and request_finished's receivers (Django runs them in the request's
    # thread under either handler) and the request itself; never back to the loop.
    assert hops == {"SyncToAsync": 3}
    # Django's adds a hop into the chain, one back to the loop under it, one for CSRF's
    # process_view and one for the view, among others.
    assert sum(theirs.values()) >= sum(hops.values()) + 3


def test_the_request_closes_the_connections_its_own_thread_opened(transactional_cases):
    opened_in: list[int] = []
    finished_in: list[int] = []

    def on_connection(sender, connection, **kwargs):
        opened_in.append(threading.get_ident())

    def on_finished(sender, **kwargs):
        finished_in.append(threading.get_ident())

    connection_created.connect(on_connection)
    request_finished.connect(on_finished)
    try:
        assert call(OneHopASGIHandler(), "/api/cases/IL-0428")[0] == 200
    finally:
        connection_created.disconnect(on_connection)
        request_finished.disconnect(on_finished)
    # Django closes a request's connections on request_finished, in the thread that runs it:
    # the view must have opened them in that thread, not in another it never returns to.
    assert opened_in
    assert set(opened_in) == set(finished_in)
    assert threading.get_ident() not in opened_in


def test_pages_and_api_answers_are_the_same_through_both_handlers(transactional_cases):
    django_handler, one_hop = ASGIHandler(), OneHopASGIHandler()
    for path, query in (
        ("/api/cases/IL-0428", b""),
        ("/cases/IL-0428", b""),
        ("/api/cases/", b"q=nccl+timeout"),
        ("/api/cases/", b"symptom=no-such-symptom"),  # 400 naming the parameter
        ("/api/cases/IL-9999999", b""),  # 404
        ("/no/such/page", b""),
        ("/api/cases/", b"q=a%00b"),  # NUL: 400 from the middleware
        ("/healthz", b""),
    ):
        theirs, ours = call(django_handler, path, query), call(one_hop, path, query)
        assert ours[0] == theirs[0], path
        assert ours[2] == theirs[2], path
        assert ours[1].get("content-type") == theirs[1].get("content-type"), path


def test_the_export_streams_every_published_case(transactional_cases):
    status, headers, body = call(OneHopASGIHandler(), "/api/export")
    assert status == 200
    assert headers["content-type"].startswith("application/jsonl")
    ids = [json.loads(line)["id"] for line in body.decode().splitlines()]
    assert "IL-0428" in ids
    assert ids == sorted(ids) and len(ids) == len(set(ids)) > 100


def test_the_served_application_uses_it():
    from incidentlib import asgi

    assert isinstance(asgi.django_application, OneHopASGIHandler)
