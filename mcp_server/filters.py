"""Filter arguments of search_incidents and list_incidents, read by the one parser of the
read layer (`incidents.selectors.parse_filters`), so a tool accepts exactly what the pages
and the API accept.

Term filters take a slug, a name or a synonym in any letter case (`nccl-timeout`, `NCCL
timeout`, `watchdog timeout`; an error code as `xid-79` or `Xid 79`), one value or a list
(any of them); `scale` takes a band of
accelerator count; `exclude` removes cases with `facet:value` items; `published_after` /
`published_before` bound the publication date; `min_accelerators`, `max_accelerators`,
`min_nodes`, `max_nodes` bound the case's counts. A value the parser refuses becomes a
ToolError naming the parameter and the nearest valid values.
"""

from __future__ import annotations

import datetime
from typing import Annotated, TypeAlias

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from typing_extensions import TypeAliasType

from incidents.models import Facet
from incidents.selectors import FACETS_BY_NAME, CaseFilters, Problem, parse_filters
from incidents.selectors.lookup import facets_naming
from incidents.selectors.params import MAX_YEAR, MIN_YEAR, parse_query_text

# One named definition (`$defs/Values`) that each of the nine term and band filters of both
# tools refers to, instead of the same shape written out eighteen times in the tool list
# every session reads.
Values = TypeAliasType("Values", str | list[str] | None)

# Short descriptions: they are repeated in two tools of the tool list every assistant reads
# (each filter takes one value or a list, any of them: the tools' docstrings say so once).
Topic = Annotated[Values, Field(description="e.g. interconnect.")]
Workload = Annotated[Values, Field(description="training, inference or fleet.")]
Scale = Annotated[Values, Field(description="under-64, 64-1023, 1024-9999, 10000-plus.")]
# Whole numbers, inclusive (the docstrings say so), checked by the parser so that a bad one
# gets the pages' and the API's answer.
Count = int | None
Symptom = Annotated[Values, Field(description="e.g. nccl-timeout.")]
RootCause = Annotated[Values, Field(description="e.g. hardware-fault.")]
Component = Annotated[Values, Field(description="e.g. nccl.")]
ErrorCode = Annotated[Values, Field(description="e.g. xid-79.")]
Organization: TypeAlias = Values
Accelerator = Annotated[Values, Field(description="e.g. a100.")]
Year = Annotated[int | None, Field(ge=MIN_YEAR, le=MAX_YEAR, description="Year published.")]
# list_incidents takes the same filters as search_incidents, whose parameters carry the
# examples (both tools are read together): its own go without, to keep the tool list small.
Term: TypeAlias = Values
YearNumber = Annotated[int | None, Field(ge=MIN_YEAR, le=MAX_YEAR)]
Exclude = Annotated[
    list[Annotated[str, Field(max_length=200)]] | None,
    Field(max_length=20, description="'facet:value' to leave out."),
]
# Dates as text, so a malformed one gets the same answer as on the pages and the API.
# One named definition (`$defs/Date`, description inside) for both bounds of both tools.
Date = TypeAliasType(
    "Date", Annotated[str | None, Field(max_length=40, description="YYYY-MM-DD, inclusive.")]
)
PublishedAfter: TypeAlias = Date
PublishedBefore: TypeAlias = Date


def problem_message(problem: Problem) -> str:
    """The tool-error wording of one parser problem: what was wrong and what to send."""
    if problem.facet is not None and problem.detail.startswith("unknown"):
        spec = FACETS_BY_NAME[problem.facet]
        message = f"Unknown {problem.facet} {problem.value!r}."
        if problem.suggestions:
            label = "Nearest" if problem.near else "Valid values"
            shown = (s.value if s.value == s.label else f"{s.value} ({s.label})" for s in problem.suggestions)
            message += f" {label}: " + ", ".join(shown) + "."
        if spec.is_term:
            message += f" All {problem.known} values: call vocab with facet={problem.facet!r}"
            # explain_error finds the code in a line as the tool printed it, whatever the spelling.
            return message + (
                "; or give the line to explain_error." if problem.facet == Facet.ERROR_CODE else "."
            )
        return message + " Or use search_incidents with the name as the query."
    message = f"{problem.parameter}: {problem.detail}"
    if problem.value is not None:
        message += f" (got {problem.value!r})"
    message += "."
    if problem.suggestions:
        message += " Send instead: " + " or ".join(repr(s.value) for s in problem.suggestions) + "."
    return message


def read_query(text: str, *, parameter: str = "query") -> str:
    """Search text read by the pages' and the API's parser (`selectors.parse_query_text`), so
    a tool refuses what they refuse (a NUL, a text over `MAX_QUERY_CHARS`) with the same
    words, saying what to send.

    Raises ToolError naming `parameter`."""
    problems: list[Problem] = []
    parse_query_text({"q": text}, problems, name=parameter)
    if problems:
        raise ToolError(" ".join(problem_message(p) for p in problems))
    return text


def _exclusions(items: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    by_param: dict[str, list[str]] = {}
    wrong: list[str] = []
    for item in items:
        facet, sep, value = item.partition(":")
        spec = FACETS_BY_NAME.get(facet.strip())
        if not sep or spec is None or not value.strip():
            wrong.append(item)
            continue
        by_param.setdefault(spec.exclude_param, []).append(value.strip())
    return by_param, wrong


def exclusions_naming(item: str) -> list[str]:
    """The `exclude` items a bare value may have meant: `facet:value` for each facet with a
    term it names (`training-hang` -> `topic:training-hang`, `symptom:training-hang`:
    `selectors.facets_naming`, one query); [] for an item with a facet."""
    value = item.strip()
    return [] if ":" in value else [f"{facet}:{value}" for facet in facets_naming(value)]


def build_filters(
    *,
    topic: Values = None,
    symptom: Values = None,
    root_cause: Values = None,
    component: Values = None,
    error_code: Values = None,
    organization: Values = None,
    accelerator: Values = None,
    year: int | None = None,
    exclude: list[str] | None = None,
    published_after: datetime.date | str | None = None,
    published_before: datetime.date | str | None = None,
    workload: Values = None,
    scale: Values = None,
    min_accelerators: int | None = None,
    max_accelerators: int | None = None,
    min_nodes: int | None = None,
    max_nodes: int | None = None,
) -> CaseFilters:
    """`CaseFilters` for the given tool arguments, read by `selectors.parse_filters`.

    Raises ToolError naming every refused value with the nearest valid ones. Costs one
    query when a term filter (organization and accelerator included) is given.
    """
    params: dict[str, object] = {
        "topic": topic,
        "symptom": symptom,
        "root_cause": root_cause,
        "component": component,
        "error_code": error_code,
        "organization": organization,
        "accelerator": accelerator,
        "year": year,
        "published_after": published_after.isoformat()
        if isinstance(published_after, datetime.date)
        else published_after,
        "published_before": published_before.isoformat()
        if isinstance(published_before, datetime.date)
        else published_before,
        "workload": workload,
        "scale": scale,
        "min_accelerators": min_accelerators,
        "max_accelerators": max_accelerators,
        "min_nodes": min_nodes,
        "max_nodes": max_nodes,
    }
    excluded, wrong = _exclusions(exclude or [])
    params.update(excluded)
    if wrong:
        facets = ", ".join(FACETS_BY_NAME)
        given = ", ".join(repr(item if len(item) <= 60 else item[:57] + "...") for item in wrong)
        meant = [pair for item in wrong for pair in exclusions_naming(item)]
        send = f"; send {' or '.join(repr(pair) for pair in meant[:4])}" if meant else ""
        raise ToolError(
            f"exclude: each item is 'facet:value' with a facet out of {facets} (got {given}{send})."
        )
    filters, problems = parse_filters({k: v for k, v in params.items() if v is not None})
    if problems:
        raise ToolError(" ".join(problem_message(p) for p in problems))
    return filters


def filter_arguments(filters: CaseFilters) -> dict[str, str]:
    """The resolved filter values, for cursor keys."""
    arguments = {facet: ",".join(values) for facet, values in sorted(filters.include.items())}
    arguments.update({f"exclude_{facet}": ",".join(v) for facet, v in sorted(filters.exclude.items())})
    for name in ("published_after", "published_before"):
        if (day := getattr(filters, name)) is not None:
            arguments[name] = day.isoformat()
    arguments.update({name: str(value) for name, value in sorted(filters.bounds.items())})
    return arguments
