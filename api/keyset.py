"""The change feed's cursor: a keyset on (`modified`, `id`), the feed's whole order.

A cursor is base64url (no padding) of compact JSON `{"m": modified, "i": id, "r": 0 | 1}`:
the (`modified`, `id`) of the row a page starts after, `modified` in ISO 8601 with its
offset, and `r` 1 for a `previous` link (the rows before that one). Clients treat it as
opaque. Anything else (not base64url JSON of that shape, a time without an offset, an id not
in an id's shape) is the API's 400 naming `cursor`.

Why not DRF's `CursorPagination`: it places its cursor on the first ordering field only
(`modified`) and counts an offset among the rows sharing that time. Several cases can share
one time (a merge's queryset `.update()`, two writes in one microsecond); when one of them is
saved again while a mirror pages through them, the offset shifts and a case is skipped on that
pass (never reaching the mirror), and `previous` links give other pages. The pair is unique,
so "strictly after this pair" needs no offset and an edit can only move a row, never another.
"""

from __future__ import annotations

import base64
import datetime
import json
import re
from dataclasses import dataclass, replace
from typing import Any

from django.db.models import Q, QuerySet
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.views import APIView

from .errors import InvalidParameters, ParameterError
from .params import page_link
from .schema import CASE_ID_PATTERN

# Far longer than any cursor this feed gives out (about 90 characters).
MAX_CURSOR_LENGTH = 200
_CASE_ID = re.compile(CASE_ID_PATTERN)


@dataclass(frozen=True)
class Cursor:
    """A page starts after the row at (`modified`, `id`): older rows, or with `before`, newer ones."""

    modified: datetime.datetime
    id: str
    before: bool = False

    def encode(self) -> str:
        data = {"m": self.modified.isoformat(), "i": self.id, "r": int(self.before)}
        raw = json.dumps(data, separators=(",", ":")).encode("ascii")
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        """Raises ValueError for anything `encode` does not give out."""
        if len(text) > MAX_CURSOR_LENGTH:
            raise ValueError("too long")
        data = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        if not isinstance(data, dict) or set(data) != {"m", "i", "r"}:
            raise ValueError("not a cursor")
        modified, case_id, before = data["m"], data["i"], data["r"]
        if not (isinstance(modified, str) and isinstance(case_id, str) and before in (0, 1)):
            raise ValueError("not a cursor")
        moment = datetime.datetime.fromisoformat(modified)
        if moment.tzinfo is None or not _CASE_ID.fullmatch(case_id):
            raise ValueError("not a cursor")
        # In UTC here, so that no database converts a time near year 1 or 9999 out of range.
        return cls(moment.astimezone(datetime.UTC), case_id, bool(before))


class KeysetPagination(BasePagination):
    """Pages of `{"modified", "id", ...}` rows newest first, (-modified, -id), `page_size` at a
    time, by a `Cursor` in the `cursor` query parameter; `get_next_link()` (older rows, None
    at the end) and `get_previous_link()` (newer rows, None on the first page) after
    `paginate_queryset`. One query a page: `page_size + 1` rows, the extra one saying whether
    more follow."""

    cursor_query_param = "cursor"

    def __init__(self, page_size: int):
        self.page_size = page_size
        self.base_url = ""
        self.next: Cursor | None = None
        self.previous: Cursor | None = None

    def decode_cursor(self, request: Request) -> Cursor | None:
        text = request.query_params.get(self.cursor_query_param)
        if not text:
            return None  # an empty parameter is one not given, as everywhere (`?cursor=$C`)
        try:
            return Cursor.decode(text)
        except (ValueError, OverflowError):
            # ValueError covers bad base64 (binascii.Error), bytes that are not UTF-8 and JSON
            # errors; OverflowError a time that leaves datetime's range on the way to UTC.
            raise InvalidParameters(
                [
                    ParameterError(
                        self.cursor_query_param,
                        "not a cursor this feed gave out; follow `next` / `previous` links",
                        text,
                    )
                ]
            ) from None

    def paginate_queryset(
        self, queryset: QuerySet[Any, Any], request: Request, view: APIView | None = None
    ) -> list[Any]:
        self.base_url = request.build_absolute_uri()
        cursor = self.decode_cursor(request)
        if cursor is None:
            rows = queryset.order_by("-modified", "-id")
        elif cursor.before:
            # The rows just above the cursor's, read upwards and turned back below.
            after = Q(modified__gt=cursor.modified) | Q(modified=cursor.modified, id__gt=cursor.id)
            rows = queryset.filter(after).order_by("modified", "id")
        else:
            below = Q(modified__lt=cursor.modified) | Q(modified=cursor.modified, id__lt=cursor.id)
            rows = queryset.filter(below).order_by("-modified", "-id")
        found = list(rows[: self.page_size + 1])
        page, more = found[: self.page_size], len(found) > self.page_size
        upwards = cursor is not None and cursor.before
        if upwards:
            page.reverse()
        # Beyond the page in the direction read, rows remain when the extra one came; the other
        # way, whenever a cursor was followed (at least the row it names).
        newer, older = (more, True) if upwards else (cursor is not None, more)
        # An empty page (its rows were saved again since the link was made) keeps the
        # cursor's place, so that its links still lead somewhere.
        first = _position(page[0]) if page else cursor
        last = _position(page[-1]) if page else cursor
        self.previous = replace(first, before=True) if newer and first else None
        self.next = replace(last, before=False) if older and last else None
        return page

    def get_next_link(self) -> str | None:
        return self._link(self.next)

    def get_previous_link(self) -> str | None:
        return self._link(self.previous)

    def _link(self, cursor: Cursor | None) -> str | None:
        if cursor is None:
            return None
        return page_link(self.base_url, self.cursor_query_param, cursor.encode())


def _position(row: dict[str, Any]) -> Cursor:
    return Cursor(row["modified"], row["id"])
