"""The API's JSON parser: DRF's, plus a 400 for JSON nested too deeply to decode.

Python's decoder raises RecursionError (not ValueError) past about a thousand levels of
nesting, which DRF would let through as a 500.
"""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JSONBodyParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply") from None
