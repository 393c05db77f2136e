"""Django's line about a refused request ("Too Many Requests: /api/match") named no client,
so an operator could not tell whom the rate limit stopped. It ends with the client's address
as the rate limits count it: the connection's, or behind API_NUM_PROXIES proxies the address
they put in X-Forwarded-For."""

from __future__ import annotations

import logging

from django.conf import settings
from django.test import RequestFactory, override_settings

from incidentlib.logs import RequestClient


def refused_line(**meta: str) -> logging.LogRecord:
    # As django.utils.log.log_response writes it for a 429.
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "%s: %s", ("Too Many Requests", "/api/match"), None
    )
    request = RequestFactory().post("/api/match")
    request.META.update(meta)
    record.__dict__["request"] = request
    RequestClient().filter(record)
    return record


def test_the_line_ends_with_the_connections_address_without_proxies():
    record = refused_line(REMOTE_ADDR="198.51.100.7", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert record.getMessage() == "Too Many Requests: /api/match (client 198.51.100.7)"
    assert record.__dict__["client"] == "198.51.100.7"


def test_behind_one_proxy_the_line_names_the_address_it_forwarded():
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}):
        record = refused_line(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="192.0.2.1, 203.0.113.9")
    assert record.getMessage() == "Too Many Requests: /api/match (client 203.0.113.9)"


def test_console_lines_are_given_the_filter():
    logging_settings: dict = settings.LOGGING
    assert logging_settings["handlers"]["console"]["filters"] == ["request_client"]
