"""Log lines an operator can grep and a log pipeline can parse.

Every record is one JSON object on one line (python-json-logger: a maintained formatter,
so we do not hand-roll escaping); a traceback, when there is one, is a field of that line,
never extra lines. Requests that name a host outside ALLOWED_HOSTS are logged as one short
line without a traceback: they are noise from scanners, not errors of ours. uvicorn's own
lines (start-up, one a request) are written in the same format (`format_server_logs`).
"""

from __future__ import annotations

import logging
import logging.config
from typing import Any

from django.conf import settings

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


class AccessFields(logging.Filter):
    """uvicorn's access line (`'%s - "%s %s HTTP/%s" %d'`: client, method, path with query,
    HTTP version, status) also as fields of the record, so that a JSON line carries them."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and len(record.args) == 5:
            fields = ("client_addr", "method", "path", "http_version", "status_code")
            record.__dict__.update(zip(fields, record.args, strict=True))
        return True


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
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, AccessFields) for f in access.filters):
        access.addFilter(AccessFields())
