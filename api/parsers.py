"""The API's body parsers: JSON, and a raw `text/plain` log. Both decode the body by
`decode_body`: the charset the `Content-Type` declares, else a byte-order mark's, else
UTF-8.

DRF's JSON parser is used for the JSON itself, plus a 400 for JSON nested too deeply to
decode: Python's decoder raises RecursionError (not ValueError) past about a thousand
levels of nesting, which DRF would let through as a 500; and a 400 naming the JSON path of
an integer longer than Python converts (`strict_json.NumberTooLong`).
"""

from __future__ import annotations

import codecs
from typing import Any

from django.utils.http import parse_header_parameters
from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.utils import json

from incidents.strict_json import NumberTooLong, loads_checking_integers

# Byte-order marks, longest first: UTF-32-LE's starts with UTF-16-LE's.
_BOMS = [
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_BE, "utf-16"),
    (codecs.BOM_UTF16_LE, "utf-16"),
]
SHOWN_CHARSET_CHARS = 40  # of a charset quoted back in an error


def declared_charset(media_type: str | None) -> str | None:
    """The `charset` parameter of a `Content-Type` value, or None when it has none."""
    _, params = parse_header_parameters(media_type or "")
    return params.get("charset") or None


def sniffed_charset(data: bytes, *, json_rule: bool = True) -> str | None:
    """The encoding a body without a declared charset shows: its byte-order mark's
    (`utf-32`, `utf-16`, `utf-8-sig`), else UTF-16/32 without one by the zero bytes of
    ASCII text, else None. With `json_rule` the zeros of the first character decide (RFC
    4627: JSON starts with ASCII); for a log, the zeros must fall in the same place in every
    character of its first `SNIFFED_BYTES`: a NUL it merely starts with (padding after an
    unclean shutdown) says nothing of its encoding."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return encoding
    if json_rule:
        if len(data) >= 4 and data[:4].count(0):
            if not data[0]:
                return "utf-16-be" if data[1] else "utf-32-be"
            if not data[1]:
                return "utf-16-le" if data[2] or data[3] else "utf-32-le"
        return None
    head = data[: len(data) // 4 * 4][:SNIFFED_BYTES]
    if len(head) < 8:
        return None
    for encoding, width, text_at in (
        ("utf-32-le", 4, 0),
        ("utf-32-be", 4, 3),
        ("utf-16-le", 2, 0),
        ("utf-16-be", 2, 1),
    ):
        if all(bool(byte) == (i % width == text_at) for i, byte in enumerate(head)):
            return encoding
    return None


SNIFFED_BYTES = 64  # of a log without a mark, read for the zero bytes of UTF-16/32 text


# The charsets a body may declare, by Python's codec name: the Unicode encodings and the
# single-byte ones a log or a JSON file is written in. Not every text codec Python has:
# `bz2_codec` would decompress a body after its size was checked, and punycode's decoder
# takes time quadratic in the body (22 s for 1 MB) and fails with a bare UnicodeError.
ACCEPTED_CODECS = frozenset(
    {
        "utf-8",
        "utf-8-sig",
        "utf-16",
        "utf-16-le",
        "utf-16-be",
        "utf-32",
        "utf-32-le",
        "utf-32-be",
        "ascii",
        *(f"iso8859-{n}" for n in (*range(1, 11), *range(13, 17))),
        *(f"cp125{n}" for n in range(9)),
        "cp437",
        "cp850",
        "koi8-r",
        "koi8-u",
        "shift_jis",
        "euc_jp",
        "gb2312",
        "gbk",
        "gb18030",
        "big5",
        "euc_kr",
    }
)


def _text_codec(charset: str) -> str:
    """`charset`'s codec name; UnsupportedCharset (415) when it is not one of
    `ACCEPTED_CODECS` (by Python's name for it, so `UTF8`, `latin1` and `utf_16` count)."""
    from .errors import ParameterError, UnsupportedCharset  # see decode_body

    try:
        name = codecs.lookup(charset).name
    except (LookupError, UnicodeError, ValueError):
        name = None
    if name in ACCEPTED_CODECS:
        return name
    shown = charset if len(charset) <= SHOWN_CHARSET_CHARS else charset[: SHOWN_CHARSET_CHARS - 1] + "…"
    detail = f"unknown charset {shown!r}: name a text encoding such as utf-8 or utf-16, or none for UTF-8"
    raise UnsupportedCharset(
        [ParameterError("Content-Type", detail, f"charset={shown}", ["utf-8", "utf-16"])]
    )


def decode_body(
    data: bytes, media_type: str | None, *, undeclared_errors: str = "strict", json_rule: bool = True
) -> str:
    """`data` as text, in the charset `media_type` declares, else the one `sniffed_charset`
    finds (`json_rule` as there), else UTF-8; a leading byte-order mark is dropped.

    Raises UnsupportedCharset (415) for a charset Python knows no text encoding of, and
    InvalidParameters (400, naming the byte) for bytes that are not text in the declared or
    sniffed charset. Undecodable UTF-8 without either follows `undeclared_errors`
    ("replace": U+FFFD, as a pasted log is read anyway).
    """
    # Imported here: DRF imports this module (the parser setting) while `rest_framework.views`,
    # which api.errors imports, is still loading.
    from .errors import InvalidParameters, ParameterError

    charset = declared_charset(media_type)
    errors = "strict"
    if charset is not None:
        codec = _text_codec(charset)
    elif (sniffed := sniffed_charset(data, json_rule=json_rule)) is not None:
        codec = charset = sniffed
        try:
            return data.decode(codec).removeprefix("\ufeff")
        except UnicodeDecodeError:
            # Zero bytes that were garbage, not UTF-16: read as UTF-8 below.
            codec, charset, errors = "utf-8", "utf-8", undeclared_errors
    else:
        codec, charset, errors = "utf-8", "utf-8", undeclared_errors
    try:
        return data.decode(codec, errors).removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        bad = error.object[error.start : min(error.end, error.start + 4)]
        base = parse_header_parameters(media_type or "")[0] or "text/plain"
        detail = (
            f"the body is not {charset} text: byte {error.start} (0x{bad.hex()}): {error.reason}; "
            f"name the charset it is written in (Content-Type: {base}; charset=...)"
        )
        if undeclared_errors == "replace":
            detail += ", or none to have the bytes that are not UTF-8 read as U+FFFD"
        raise InvalidParameters([ParameterError("body", detail)]) from None


class JSONBodyParser(JSONParser):
    """JSON in the charset `decode_body` finds (UTF-8 when none is declared or marked)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        from .errors import InvalidParameters, ParameterError  # see decode_body

        text = decode_body(stream.read() if stream is not None else b"", media_type)
        try:
            return loads_checking_integers(
                json.loads, text, parse_constant=json.strict_constant if self.strict else None
            )
        except NumberTooLong as error:  # not Python's advice to raise its digit limit
            raise InvalidParameters([ParameterError(error.path, error.reason)]) from None
        except ValueError as error:  # as DRF's JSONParser says it
            raise ParseError(f"JSON parse error - {error}") from None
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply") from None


class MergePatchParser(JSONBodyParser):
    """RFC 7396's own media type for a JSON Merge Patch body (`PATCH /api/cases/<id>`),
    read as any JSON body."""

    media_type = "application/merge-patch+json"


class PlainTextParser(BaseParser):
    """A raw `text/plain` body (`curl --data-binary @job.log`) read as `{"text": ...}`, in
    the charset `decode_body` finds: a declared one (undecodable bytes are a 400), a
    byte-order mark's (PowerShell writes UTF-16 with one), else UTF-8 with undecodable
    bytes as U+FFFD, as the log matcher reads them anyway."""

    media_type = "text/plain"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        data = stream.read() if stream is not None else b""
        return {"text": decode_body(data, media_type, undeclared_errors="replace", json_rule=False)}
