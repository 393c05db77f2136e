"""Log lines an operator can grep and a log pipeline can parse.

Every record is one JSON object on one line (python-json-logger: a maintained formatter,
so we do not hand-roll escaping); a traceback, when there is one, is a field of that line,
never extra lines. Requests that name a host outside ALLOWED_HOSTS are logged as one short
line without a traceback: they are noise from scanners, not errors of ours.
"""

from __future__ import annotations

import logging


class DropTraceback(logging.Filter):
    """Keep the message, drop the exception and stack of a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        # Django attaches the request; its repr is long and says nothing the message does not.
        record.__dict__.pop("request", None)
        return True
