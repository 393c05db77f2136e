"""An unhandled error on an HTML page (issue 12 point 4): the reader gets the site's own 500
page with nothing internal in it, and the operator gets exactly one structured log line
(JSON, level ERROR, logger django.request) carrying the traceback as a field."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from django.conf import settings
from django.utils.log import configure_logging

from incidents import selectors

pytestmark = pytest.mark.django_db

SECRET = "hunter2-at-/srv/internal/db.sqlite3"


@pytest.fixture
def log_output() -> Iterator[io.StringIO]:
    """The project's real logging configuration (settings.LOGGING, applied as Django does at
    start-up: handlers, formatters, filters), every stream handler writing into one buffer
    instead of stderr (which pytest swaps between phases)."""
    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)
    buffer = io.StringIO()
    loggers = [logging.getLogger(), *map(logging.getLogger, list(logging.root.manager.loggerDict))]
    for logger in loggers:
        for handler in logger.handlers:
            # pytest's own capturing handler is a StreamHandler too; it is not the project's.
            ours = not type(handler).__module__.startswith("_pytest")
            if isinstance(handler, logging.StreamHandler) and ours:
                handler.setStream(buffer)
    yield buffer
    configure_logging(settings.LOGGING_CONFIG, settings.LOGGING)


def test_an_unhandled_error_gives_a_bare_500_page_and_one_json_log_line(client, monkeypatch, log_output):
    def broken(*args, **kwargs):
        raise RuntimeError(f"the store broke: {SECRET}")

    # The home page reads the library's statistics through this selector.
    monkeypatch.setattr(selectors, "case_stats", broken)
    client.raise_request_exception = False
    assert settings.DEBUG is False

    response = client.get("/")

    assert response.status_code == 500
    assert response["Content-Type"].startswith("text/html")
    body = response.content.decode()
    assert "<h1>Server error</h1>" in body and "Something failed on our side" in body
    for internal in (SECRET, "RuntimeError", "Traceback", 'File "', "case_stats", "the store broke"):
        assert internal not in body, internal

    lines = log_output.getvalue().splitlines()
    assert len(lines) == 1, lines
    record = json.loads(lines[0])
    assert (record["level"], record["logger"], record["message"]) == (
        "ERROR",
        "django.request",
        "Internal Server Error: / (client 127.0.0.1)",
    )
    assert (record["status_code"], record["client"]) == (500, "127.0.0.1")
    # The traceback travels inside the one line, for the operator.
    assert "RuntimeError: the store broke" in record["exc_info"] and SECRET in record["exc_info"]
