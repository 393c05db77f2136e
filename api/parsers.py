"""The API's JSON parser: DRF's, plus a 400 for JSON nested too deeply to decode.

Python's decoder raises RecursionError (not ValueError) past about a thousand levels of
nesting, which DRF would let through as a 500.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser


class JSONBodyParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply") from None


class PlainTextParser(BaseParser):
    """A raw `text/plain` body (`curl --data-binary @job.log`) read as `{"text": ...}`:
    undecodable bytes become U+FFFD, as the log matcher reads them anyway."""

    media_type = "text/plain"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = stream.read() if stream is not None else b""
        return {"text": data.decode("utf-8", "replace")}
