"""`fields`, the one parser of a list of field names, for the API's query strings and the MCP
tools alike (`GET /api/cases/{id}?fields=` and `get_incident`'s `fields`, the case list's
`fields`).

The same forms are read at every door: one text of comma-separated names
(`"root_cause,checks"`), several of them (the API's repeated `fields=a&fields=b`, a tool's
list `["root_cause", "checks"]`), or both (`["root_cause,checks", "title"]`). Spaces around
a name are dropped. Only blanks (`fields=`, `""`) are not given, by the rule of every door
(`params.is_blank`); text naming no field (`fields=,`, an empty list) and a name out of the
choices are `Problem`s, each door reporting them its own way (the API as a 400 naming the
parameter, MCP as a tool error) with the names that would work.
"""

from __future__ import annotations

from collections.abc import Sequence

from .params import Choice, Problem, is_blank
from .spelling import names_meant

UNKNOWN_FIELD = "unknown field; choose from {choices}"
NO_FIELD = "name at least one field out of {choices}"
# Names a caller gives a field that spelling cannot find: triage calls the remediation `fix`,
# and an engineer asks for the cause or the fix in their own words.
FIELDS_MEANT: dict[str, tuple[str, ...]] = {
    "fix": ("remediation",),
    "fixes": ("remediation",),
    "mitigation": ("remediation",),
    "resolution": ("remediation",),
    "cause": ("root_cause",),
    "rootcause": ("root_cause",),
}


def parse_field_list(
    given: str | Sequence[str] | None, choices: Sequence[str], *, parameter: str = "fields"
) -> tuple[list[str] | None, list[Problem]]:
    """The names `given` asks for, out of `choices`, in the order of `choices` (each once),
    and the problems found; never raises.

    `given`: None when the parameter is absent; a text, or a sequence of texts (a query
    string's values, a tool's list), each holding one name or several separated by commas.
    Returns None (every field) when nothing or only blanks were given; the known names
    otherwise (an unknown one is left out, with a problem naming the nearest choice).
    """
    if given is None:
        return None, []
    raws = [given] if isinstance(given, str) else list(given)
    if raws and all(is_blank(raw) for raw in raws):
        return None, []
    names = [part.strip() for raw in raws for part in raw.split(",")]
    names = list(dict.fromkeys(name for name in names if name))
    listed = ", ".join(choices)
    problems = [
        Problem(
            parameter,
            UNKNOWN_FIELD.format(choices=listed),
            name,
            tuple(Choice(near, near) for near in names_meant(name, choices, other_names=FIELDS_MEANT)),
        )
        for name in names
        if name not in choices
    ]
    if not names:
        problems.append(Problem(parameter, NO_FIELD.format(choices=listed)))
    return [choice for choice in choices if choice in names], problems
