"""Log lines an operator can grep and a log pipeline can parse.

Every record is one JSON object on one line (python-json-logger: a maintained formatter,
so we do not hand-roll escaping); a traceback, when there is one, is a field of that line,
never extra lines. Requests that name a host outside ALLOWED_HOSTS are logged as one short
line without a traceback: they are noise from scanners, not errors of ours. uvicorn's own
lines (start-up, one a request) are written in the same format (`format_server_logs`).

Lines go to stderr (uvicorn's access lines to stdout, as uvicorn writes them). A request's
lines name its client as the rate limits count it (`client_address`: the connection's
address, or the one `API_NUM_PROXIES` trusted proxies put in X-Forwarded-For), and the
access line says how long the request took until its answer started (`timed`).
"""

from __future__ import annotations

import contextvars
import logging
import logging.config
import time
from typing import Any

from django.conf import settings
from rest_framework.settings import api_settings
from starlette.types import ASGIApp, Receive, Scope, Send

# The loggers uvicorn writes to, with handlers of its own (configured before the app loads):
# start-up and errors (`uvicorn`, which `uvicorn.error` propagates to) and one line a request.
SERVER_LOGGERS = ("uvicorn", "uvicorn.access")


class DropTraceback(logging.Filter):
    """Keep the message, drop the exception and stack of a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        # Django attaches the request; its repr is long and says nothing the message does not.
        record.__dict__.pop("request", None)
        return True


# When the request being served started and who sent it, for its access line (`timed`).
_request_started = contextvars.ContextVar[float | None]("request_started", default=None)
_request_client = contextvars.ContextVar[str | None]("request_client", default=None)


def client_address(remote_addr: str, forwarded_for: str | None) -> str:
    """The client's address as the rate limits count it (DRF's `get_ident`): `remote_addr`,
    or with `API_NUM_PROXIES` set, the address that many proxies away in X-Forwarded-For."""
    proxies = api_settings.NUM_PROXIES or 0
    if proxies and forwarded_for:
        addresses = forwarded_for.split(",")
        return addresses[-min(proxies, len(addresses))].strip()
    return remote_addr


def timed(app: ASGIApp) -> ASGIApp:
    """`app`, noting when each HTTP request starts and its client, for the access line."""

    async def timed_app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            _request_started.set(time.perf_counter())
            forwarded = [value for name, value in scope.get("headers", ()) if name == b"x-forwarded-for"]
            remote = (scope.get("client") or ("", 0))[0]
            _request_client.set(client_address(remote, b",".join(forwarded).decode("latin-1") or None))
        await app(scope, receive, send)

    return timed_app


class AccessFields(logging.Filter):
    """uvicorn's access line (`'%s - "%s %s HTTP/%s" %d'`: connection, method, path with
    query, HTTP version, status) also as fields of the record, so that a JSON line carries
    them, with the request's `duration_ms` until its answer started and its `client` as the
    rate limits count it (`timed`), which the line's text ends with too."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and len(record.args) == 5:
            fields = ("client_addr", "method", "path", "http_version", "status_code")
            record.__dict__.update(zip(fields, record.args, strict=True))
            started, client = _request_started.get(), _request_client.get()
            if started is not None:
                duration_ms = round((time.perf_counter() - started) * 1000, 1)
                record.__dict__.update(duration_ms=duration_ms, client=client)
                record.msg = f"{record.msg} %.1f ms, client %s"
                record.args = (*record.args, duration_ms, client)
        return True


class DropColorMessage(logging.Filter):
    """Leaves out the `color_message` uvicorn gives its lines for its own coloured terminal
    formatter: as a field of a JSON line it carried ANSI escapes (`\u001b[1m%s://%s:%d\u001b[0m`)
    beside the plain `message`, burying "Uvicorn running on http://..." in escapes."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.__dict__.pop("color_message", None)
        return True


class RequestClient(logging.Filter):
    """A record about a request (Django's `django.request` lines: "Too Many Requests:
    /api/match") names the request's client, as a `client` field and at the end of its text."""

    def filter(self, record: logging.LogRecord) -> bool:
        request = record.__dict__.get("request")
        meta = getattr(request, "META", None)
        if isinstance(meta, dict) and isinstance(record.args, tuple) and "client" not in record.__dict__:
            client = client_address(meta.get("REMOTE_ADDR", ""), meta.get("HTTP_X_FORWARDED_FOR"))
            record.__dict__["client"] = client
            record.msg = f"{record.msg} (client %s)"
            record.args = (*record.args, client)
        return True


def configure(config: dict[str, Any]) -> None:
    """Django's `LOGGING_CONFIG`: the `LOGGING` settings (`logging.config.dictConfig`, as
    Django's default), and Python's warnings routed through logging (`py.warnings`, level
    WARNING), so that a library's warning is a line of the log in its format (one JSON object)
    like any other record. Django no longer does this itself: a warning was two lines of plain
    text on stderr (`file.py:336: Warning: ...` and the source line), which a JSON log collector
    cannot parse."""
    logging.config.dictConfig(config)
    logging.captureWarnings(True)


def format_server_logs() -> None:
    """Write uvicorn's lines in the app's format (`settings.LOG_FORMAT`: one JSON object a
    line by default), its access lines with their fields (`AccessFields`). Only formatters
    change: which lines uvicorn writes and where stay its options (`--log-level`,
    `--no-access-log`, access lines on stdout). Call once Django's settings are set up."""
    logging_settings: dict[str, Any] = settings.LOGGING  # typed as the settings file builds it
    config = dict(logging_settings["formatters"][settings.LOG_FORMAT])
    formatter = logging.config.DictConfigurator({}).configure_formatter(config)
    for name in SERVER_LOGGERS:
        for handler in logging.getLogger(name).handlers:
            handler.setFormatter(formatter)
            if not any(isinstance(f, DropColorMessage) for f in handler.filters):
                handler.addFilter(DropColorMessage())
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, AccessFields) for f in access.filters):
        access.addFilter(AccessFields())
