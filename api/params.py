"""Strict parsing of query parameters: every problem becomes a `ParameterError`.

A parameter given empty or only blanks (`?sort=`, `?fields=`, `?page=`) is read as not
given, by the rule of every door (`selectors.is_blank`, the parser of the pages and MCP
too): an HTML form submits its empty fields, and a script building a query string from
optional values should not have to drop the empty ones to avoid a 400.

Views build a `ParamReader` with the parameters they accept; a parameter they do not
accept, a value that does not parse or is out of range, is collected and `finish()` raises
one `InvalidParameters` (400) naming all of them.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from django.http import QueryDict
from django.utils.dateparse import parse_datetime
from rest_framework.fields import Field

from incidents.selectors import Problem, integer_detail, is_blank, parse_field_list
from incidents.selectors.spelling import names_meant

from .errors import InvalidParameters, ParameterError


class ParamReader:
    """Reads typed values from a query string, collecting errors instead of raising."""

    def __init__(self, query: QueryDict, *, allowed: Iterable[str]):
        self.query = query
        self.allowed = tuple(allowed)
        self.errors: list[ParameterError] = []
        accepted = ", ".join(self.allowed) if self.allowed else "no query parameters"
        for name in query:
            if name not in self.allowed:
                self.errors.append(
                    ParameterError(
                        name,
                        f"unknown parameter; this endpoint accepts {accepted}",
                        suggestions=name_meant(name, self.allowed),
                    )
                )

    def error(
        self, parameter: str, detail: str, value: str | None = None, suggestions: Sequence[str] = ()
    ) -> None:
        self.errors.append(ParameterError(parameter, detail, value, list(suggestions)))

    def report(self, problems: Iterable[Problem]) -> None:
        """Record the problems `selectors.parse_search` / `parse_filters` found (suggestions
        as the values to send)."""
        for problem in problems:
            self.error(
                problem.parameter, problem.detail, problem.value, [s.value for s in problem.suggestions]
            )

    def single(self, name: str) -> str | None:
        """The one value of `name` (None when absent or blank: `is_blank`); repeating it
        is an error."""
        values = [value for value in self.query.getlist(name) if not is_blank(value)]
        if not values:
            return None
        if len(values) > 1:
            self.error(name, "given more than once; give it once")
            return None
        return values[0]

    def many(self, name: str) -> list[str]:
        """Every value of a repeatable parameter, blanks dropped (`is_blank`), in order,
        without repeats."""
        seen: dict[str, None] = {}
        for value in self.query.getlist(name):
            value = value.strip()
            if not is_blank(value):
                seen.setdefault(value, None)
        return list(seen)

    def integer(self, name: str, *, default: int, minimum: int, maximum: int) -> int:
        """A whole number in digits 0-9 (`selectors.whole_number`, the rule of every door)
        from `minimum` to `maximum`; `default` when absent or refused."""
        raw = self.single(name)
        if raw is None:
            return default
        detail = integer_detail(raw, minimum=minimum, maximum=maximum)
        if detail is not None:
            self.error(name, detail, raw)
            return default
        return int(raw)

    def text(self, name: str, *, max_length: int) -> str | None:
        raw = self.single(name)
        if raw is None:
            return None
        if len(raw) > max_length:
            self.error(name, f"must be at most {max_length} characters long")
            return None
        return raw.replace("\x00", " ")

    def date(self, name: str) -> datetime.date | None:
        raw = self.single(name)
        if raw is None:
            return None
        try:
            return datetime.date.fromisoformat(raw.strip())
        except ValueError:
            self.error(name, "must be a date as YYYY-MM-DD", raw)
            return None

    def timestamp(self, name: str) -> datetime.datetime | None:
        """An ISO 8601 date-time; without an offset it is taken as UTC."""
        raw = self.single(name)
        if raw is None:
            return None
        # An unencoded "+01:00" arrives as " 01:00": read it back as the offset it was.
        text = re.sub(r" (\d\d:?\d\d)$", r"+\1", raw.strip())
        try:
            value = parse_datetime(text)
        except ValueError:
            value = None
        if value is None:
            self.error(name, "must be an ISO 8601 date-time such as 2024-05-01T12:00:00Z", raw)
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=datetime.UTC)
        return value

    def choice(self, name: str, choices: Sequence[str], *, default: str) -> str:
        raw = self.single(name)
        if raw is None:
            return default
        if raw not in choices:
            self.error(name, f"must be one of {', '.join(choices)}", raw, list(choices))
            return default
        return raw

    def field_list(self, name: str, choices: Sequence[str]) -> list[str] | None:
        """Comma-separated (or repeated) names out of `choices`, read by the parser of every
        door (`selectors.parse_field_list`, as MCP's `get_incident` reads its `fields`);
        None when absent or blank (`is_blank`: every field). Only commas (`fields=,`) names
        no field: an error, as an unknown name is (with the nearest one)."""
        values, problems = parse_field_list(self.query.getlist(name) or None, choices, parameter=name)
        self.report(problems)
        return values

    def finish(self) -> None:
        """Raise `InvalidParameters` (400) if anything was wrong."""
        if self.errors:
            raise InvalidParameters(self.errors)


def name_meant(name: str, accepted: Sequence[str]) -> list[str]:
    """The accepted name an unknown one means, for the `suggestions` of an unknown query
    parameter or body key alike: the name it stands for elsewhere (`{"log": ...}` to
    /api/match -> `text`, `?query=` -> `q`), else the one it is a slip of (`qq` -> `q`, `logs`
    -> `log`); at most one, none when nothing fits (`spelling.names_meant`)."""
    return names_meant(name, accepted, limit=1)


def reject_all(query: QueryDict) -> None:
    """For endpoints that take no query parameters at all."""
    ParamReader(query, allowed=()).finish()


def without_blank_optionals(body: object, fields: Mapping[str, Field]) -> object:
    """A JSON body without its optional fields given as a blank string (`is_blank`): those
    are not given, so the field takes its default (`{"limit": ""}` is `limit` 10), by the
    rule of every door (an MCP tool leaves out such an argument, the pages and the query
    strings such a parameter). A required field stays, and a blank one is refused as such.
    A body that is not an object is left as it is, for the serializer to refuse."""
    if not isinstance(body, Mapping):
        return body
    return {
        key: value
        for key, value in body.items()
        if not (isinstance(value, str) and is_blank(value) and key in fields and not fields[key].required)
    }


def reject_unknown_keys(body: object, accepted: Iterable[str]) -> None:
    """For JSON bodies: a key the endpoint does not read is a 400 naming it (with the
    closest accepted key, `logs` -> `log`), as an unknown query parameter is, instead of an
    answer that silently leaves it out (`unknown_keys`). A body that is not an object is
    left to the serializer to refuse."""
    if isinstance(body, dict) and (errors := unknown_keys(body, accepted)):
        raise InvalidParameters(errors)


def unknown_keys(body: Mapping[Any, Any], accepted: Iterable[str]) -> list[ParameterError]:
    """A `ParameterError` for each key of a JSON object `body` not in `accepted`, in body
    order: `unknown field; the body accepts <accepted>`, with the accepted key it may mean
    as `suggestions` (`name_meant`), for an endpoint that names them with its other errors
    (`POST /api/proposals/`)."""
    accepted = tuple(accepted)
    return [
        ParameterError(
            str(key),
            f"unknown field; the body accepts {', '.join(accepted)}",
            suggestions=name_meant(str(key), accepted),
        )
        for key in body
        if key not in accepted
    ]


def page_link(url: str, name: str, value: object | None) -> str:
    """`url` (a request's absolute URL) with `name` set to `value`, or left out when None,
    for `next` / `previous` links: every parameter given blank (`is_blank`: `?q=`, `since=`)
    is left out too, since it meant "not given" (a link should not carry it on). Parameters
    sorted by name, each value as given, as DRF's `replace_query_param` wrote them."""
    parts = urlsplit(url)
    query = {
        key: kept
        for key, values in parse_qs(parts.query, keep_blank_values=True).items()
        if key != name and (kept := [v for v in values if not is_blank(v)])
    }
    if value is not None:
        query[name] = [str(value)]
    return urlunsplit(parts._replace(query=urlencode(sorted(query.items()), doseq=True)))
