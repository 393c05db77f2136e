"""The one parser of list parameters, for pages, the JSON API and MCP tools alike.

`parse_filters(params)` reads the facet filters and the date range; `parse_search(params)`
adds the search text and the sort. Both return what they understood plus a list of
`Problem`s; they never raise and never drop a value silently. Each front door reports the
problems its own way: the API as a 400 problem document, MCP as a tool error, the HTML page
as a visible notice ("No symptom called “NCCL timout”. Did you mean NCCL timeout?").

Parameters (every one optional; `params` is a QueryDict or a mapping of name to a string
or a list of strings). A value that is empty or only blanks (`sort=`, `published_after=`,
`topic=`) is not given: an HTML form submits its empty fields, and a link built from one
must mean what the form meant. The API's own parameters (`page`, `page_size`, `fields`,
`facets`, `limit`) follow the same rule (`is_blank`, read by `api.params.ParamReader`),
and an MCP tool takes `""` for an optional argument as leaving it out:

- `topic`, `symptom`, `root_cause`, `component`, `workload`, `organization`, `accelerator`
  (repeatable, OR within a facet): a term's slug, name or synonym in any letter case
  (`nccl-timeout`, `NCCL timeout`, `watchdog timeout`; `meta`, `FAIR`; `a100`, `NVIDIA
  A100 SXM 80GB`); stored as the slug. An accelerator family (`a100`) finds the cases of
  every model in it (A100 40GB, A100 80GB and those naming only the family). A `topic`
  value that is now a workload (`training`, `inference`) filters on the workload, and
  `CaseFilters.notes` says so (`moved_note`), which every door's answer carries;
- `year` (repeatable): a publication year, 1990 to 2100;
- `scale` (repeatable): a band of accelerator count, `under-64`, `64-1023`, `1024-9999`,
  `10000-plus` (or its label, `10,000+`);
- `exclude_<facet>` (repeatable): the same values, removing the cases that have them;
- `published_after`, `published_before`: dates as YYYY-MM-DD, both ends inclusive;
- `min_accelerators`, `max_accelerators`, `min_nodes`, `max_nodes`: whole numbers from 0 to
  10,000,000, both ends inclusive (cases that do not state the count are left out); these
  and `year` are written with the digits 0-9 (`numbers.whole_number`, the rule of every
  integer parameter);
- `q`: search text, at most `MAX_QUERY_CHARS` characters (the one limit: the search
  module cuts there too); a longer text is a problem and is not searched at all, since a
  cut query would be searched as words the caller never sent;
- `sort`: `relevance`, `newest` or `oldest`; the API's earlier `ordering` is still read
  as an alias, in its own spelling only: `relevance`, `-published` (newest) or `published`
  (oldest). Any other value is a problem listing both parameters' values and suggesting
  the spelling it means (`ordering=newest` -> `-published`, `sort=latest` -> `newest`).

Cost: one query reading the terms of the term facets used (plus one per value facet, a
case field matched as spelled, when the registry has one); none without filters.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..models import Case, Term
from .facets import FACETS, FACETS_BY_NAME, CaseFilters, FacetSpec
from .numbers import number_detail, whole_number
from .scale import BOUND_PAIRS, BOUNDS, MAX_BOUND, SCALE_BANDS
from .spelling import nearest_strings, nearest_terms, resolve_term, spelling_key

MAX_QUERY_CHARS = 500
# No value can hold a NUL (PostgreSQL refuses it in text): the words every door uses.
NUL_DETAIL = "contains a NUL character (\\0), which no value can hold"
# What every door says of a triage asked with neither symptoms nor log lines (the API's 400
# detail of `symptoms`, the MCP tool's error, the triage answer's note).
NOTHING_TO_TRIAGE = "give symptoms (what failed, the error text) or log lines as text, or both"
MAX_VALUES_PER_FACET = 20
MAX_VALUE_CHARS = 200
MIN_YEAR, MAX_YEAR = 1990, 2100
MAX_SUGGESTIONS = 5
# With no close match, a facet with at most this many values lists them all instead.
LIST_ALL_BELOW = 15
# A facet whose former values moved to another facet: `training` and `inference` were
# topics and are now workloads, so `topic=training` filters on the workload.
MOVED_FACETS: dict[str, str] = {"topic": "workload"}

SORTS: dict[str, str] = {"relevance": "Best match", "newest": "Newest first", "oldest": "Oldest first"}
SORT_PARAM = "sort"
# `ordering` is the API's earlier name for `sort`, with Django-style values.
ORDERING_ALIAS = "ordering"
ORDERINGS: dict[str, str] = {"relevance": "relevance", "-published": "newest", "published": "oldest"}
# Words people use for each sort, never accepted as values (one spelling per sort in URLs)
# but suggested: spelt alike, `best` is nearest `oldest`, which it does not mean.
SORT_SYNONYMS: dict[str, tuple[str, ...]] = {
    "relevance": ("best", "best-match", "match", "relevant", "rank", "ranked", "ranking", "score"),
    "newest": ("latest", "recent", "new", "newest-first"),
    "oldest": ("earliest", "old", "oldest-first"),
}
DATE_PARAMS = ("published_after", "published_before")
# What a person reads for a parameter whose name says little ("Q: ...").
PARAMETER_LABELS: dict[str, str] = {"q": "Search text"}

Params = Mapping[str, Any]


@dataclass(frozen=True)
class Choice:
    """A value the caller could have meant: `value` to send back, `label` to read."""

    value: str
    label: str


@dataclass(frozen=True)
class Problem:
    """What is wrong with one parameter value, and what would be accepted instead.

    `detail` is a short phrase (`unknown symptom 'nccl-timout'`, `must be a date as
    YYYY-MM-DD`); `suggestions` are the nearest valid values when `near`, else (for a
    facet with few values) every valid value; `known` counts the facet's values.
    """

    parameter: str
    detail: str
    value: str | None = None
    suggestions: tuple[Choice, ...] = ()
    near: bool = True
    known: int = 0
    facet: str | None = None  # the facet of an unknown filter value

    def message(self, *, suggest: bool = True) -> str:
        """One sentence for a person, e.g. `No symptom called “nccl-timout”. Did you mean
        NCCL timeout?` (without the suggestions when not `suggest`)."""
        labels = [s.label for s in self.suggestions] if suggest else []
        if self.facet and self.detail.startswith("unknown"):
            noun = FACETS_BY_NAME[self.facet].label.lower()
            text = f"No {noun} called “{self.value}”."
            if labels and self.near:
                text += " Did you mean " + _either(labels) + "?"
            elif labels:
                text += " Choose from " + ", ".join(labels) + "."
            return text
        text = f"{_parameter_label(self.parameter)}: {self.detail}"
        if self.value is not None:
            text += f" (given “{self.value}”)"
        text += "."
        if labels:
            text += " Did you mean " + _either(labels) + "?"
        return text


def _either(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " or " + labels[-1]


def _parameter_label(parameter: str) -> str:
    if parameter.startswith("exclude_") and parameter[8:] in FACETS_BY_NAME:
        return "Excluded " + FACETS_BY_NAME[parameter[8:]].label.lower()
    if parameter in FACETS_BY_NAME:
        return FACETS_BY_NAME[parameter].label
    return PARAMETER_LABELS.get(parameter) or parameter.replace("_", " ").capitalize()


def values_of(params: Params, name: str) -> list[str]:
    """Every value of `name` as given (QueryDict lists, a single string, or a list)."""
    if hasattr(params, "getlist"):
        raw = params.getlist(name)
    else:
        raw = params.get(name)
        if raw is None:
            return []
        if isinstance(raw, (str, int, datetime.date)) or not isinstance(raw, Sequence):
            raw = [raw]
    return [str(v) for v in raw if v is not None]


def is_blank(value: str) -> bool:
    """Whether a parameter's value counts as not given, the rule of every door: empty or
    only blanks (`sort=`, `fields=`, `page=`, as an HTML form submits an empty field)."""
    return not value.strip()


def empty_detail(value: str) -> str:
    """What every door says of a required text (a query, a log) given empty or only blanks
    (`is_blank`), a phrase after its name: a text of blanks is no text, refused as an empty
    one is, saying why when the caller may not see it."""
    return "must not be empty (it holds only spaces)" if value else "must not be empty"


def _distinct(values: list[str]) -> list[str]:
    """Stripped, non-blank values in order, each once."""
    return list(dict.fromkeys(v.replace("\x00", " ").strip() for v in values if not is_blank(v)))


def _single(params: Params, name: str, problems: list[Problem]) -> str | None:
    """The one value of `name`, None when absent or blank (`is_blank`)."""
    values = _distinct(values_of(params, name))
    if len(values) > 1:
        problems.append(Problem(name, "given more than once; give it once"))
    return values[0] if values else None


class _Vocabulary:
    """The accepted values of the facets in use, read once per parse."""

    def __init__(self, facets: set[str]):
        term_facets = [f for f in facets if FACETS_BY_NAME[f].is_term]
        if "topic" in term_facets and MOVED_FACETS["topic"] not in term_facets:
            term_facets.append(MOVED_FACETS["topic"])
        self.terms: dict[str, list[Term]] = {f: [] for f in term_facets}
        if term_facets:
            for term in Term.objects.filter(facet__in=term_facets).only("facet", "slug", "name", "synonyms"):
                self.terms[term.facet].append(term)
        self.names: dict[str, list[str]] = {}
        for facet in facets:
            if FACETS_BY_NAME[facet].kind == "value":
                self.names[facet] = distinct_case_values(facet)

    def resolve(
        self, spec: FacetSpec, parameter: str, value: str
    ) -> tuple[str, Choice | None, Problem | None]:
        """The facet `value` filters on (`spec`'s, or the one a moved value now lives in),
        and the value, or the problem with it (with the nearest known values)."""
        if len(value) > MAX_VALUE_CHARS:
            return (
                spec.name,
                None,
                Problem(parameter, f"must be at most {MAX_VALUE_CHARS} characters long", facet=None),
            )
        if spec.kind == "band":
            band = resolve_term(value, SCALE_BANDS)
            if band is not None:
                return spec.name, Choice(band.slug, band.label), None
            every = [Choice(b.slug, b.label) for b in SCALE_BANDS]
            return spec.name, None, _unknown(spec, parameter, value, [], every)
        if spec.is_term:
            terms = self.terms[spec.name]
            term = resolve_term(value, terms)
            if term is not None:
                return spec.name, Choice(term.slug, term.name), None
            # Before the suggestions, which compare the value with every term (difflib).
            moved = self.moved(spec, value)
            if moved is not None:
                return (*moved, None)
            near = nearest_terms(value, terms, limit=MAX_SUGGESTIONS)
            return spec.name, None, unknown_term(spec, parameter, value, near, terms)
        names = self.names[spec.name]
        wanted = spelling_key(value)
        for name in names:
            if spelling_key(name) == wanted:
                return spec.name, Choice(name, name), None
        near_names = [Choice(n, n) for n in nearest_strings(value, names, limit=MAX_SUGGESTIONS)]
        return spec.name, None, _unknown(spec, parameter, value, near_names, [Choice(n, n) for n in names])

    def moved(self, spec: FacetSpec, value: str) -> tuple[str, Choice] | None:
        """Where a value that is no term of `spec` now lives: `topic=training` is the
        workload `training` since topics became kinds of failure. None when nowhere."""
        facet = MOVED_FACETS.get(spec.name)
        if facet is None:
            return None
        term = resolve_term(value, self.terms[facet])
        return (facet, Choice(term.slug, term.name)) if term is not None else None


def term_value(facet: str, parameter: str, value: str) -> tuple[str | None, Problem | None]:
    """The slug of the term of `facet` that `value` names (its slug, name or a synonym, in
    any letter case), read as the list filter of that facet reads it; else the problem the
    filter reports (`unknown topic 'nope'` with the nearest terms, or all of them when none is
    near and they are few; a value that now lives in another facet, as `moved_note` says it),
    for a body field naming one term (`POST /api/proposals/`'s `topic`). One query."""
    spec = FACETS_BY_NAME[facet]
    found, choice, problem = _Vocabulary({facet}).resolve(spec, parameter, value)
    if problem is not None or choice is None:
        return None, problem
    if found != facet:
        return None, Problem(parameter, moved_note(value, facet, found), value)
    return choice.value, None


def moved_note(value: str, was: str, now: str, label: str = "", *, excluded: bool = False) -> str:
    """What every door says of `value`, a former `was` value now a `now` one: alone
    (`'training' is a workload now, not a topic`, as /topics/training, /api/topics/training
    and MCP get_topic say it), or with `label`, the term it was read as, as a search or
    list note (`...: filtered on the workload Training.`; `excluded`: `...: excluded the
    workload Training.`)."""
    said = f"{value!r} is a {now} now, not a {was}"
    if not label:
        return said
    return f"{said}: {'excluded' if excluded else 'filtered on'} the {now} {label}."


def unknown_term(
    spec: FacetSpec, parameter: str, value: str, near: Sequence[Term], terms: Sequence[Term]
) -> Problem:
    """The problem of a `value` no term of `spec` is, with the `near` terms (or every one of
    `terms` when none is near and they are few): what every door says of it, each in its
    format, as a filter value (`topic=interconect`) or as the thing a URL or a tool names
    (`/topics/interconect`, `get_topic`: `selectors.TopicLookup.problem`)."""
    every = [Choice(t.slug, t.name) for t in sorted(terms, key=lambda t: t.slug)]
    return _unknown(spec, parameter, value, [Choice(t.slug, t.name) for t in near], every)


def _unknown(spec: FacetSpec, parameter: str, value: str, near: list[Choice], every: list[Choice]) -> Problem:
    shown, is_near = (near, True) if near else (every if len(every) <= LIST_ALL_BELOW else [], False)
    return Problem(
        parameter,
        f"unknown {spec.label.lower()} {value!r}",
        value,
        tuple(shown),
        near=is_near,
        known=len(every),
        facet=spec.name,
    )


def _year(parameter: str, value: str) -> tuple[Choice | None, Problem | None]:
    number = whole_number(value)
    if number is not None and MIN_YEAR <= number <= MAX_YEAR:
        return Choice(str(number), str(number)), None
    detail = f"must be a year between {MIN_YEAR} and {MAX_YEAR}"
    return None, Problem(parameter, number_detail(value, detail), value)


def _date(params: Params, name: str, problems: list[Problem]) -> datetime.date | None:
    raw = _single(params, name, problems)
    if raw is None:
        return None
    try:
        return datetime.date.fromisoformat(raw)
    except ValueError:
        problems.append(Problem(name, "must be a date as YYYY-MM-DD", raw))
        return None


def _bounds(params: Params, problems: list[Problem]) -> dict[str, int]:
    """`min_accelerators`, `max_accelerators`, `min_nodes`, `max_nodes` as whole numbers from
    0 to `MAX_BOUND`; a max below its min is a problem and is left out. A blank value is no
    bound (`is_blank`)."""
    bounds: dict[str, int] = {}
    for bound in BOUNDS:
        raw = _single(params, bound.param, problems)
        if raw is None:
            continue
        number = whole_number(raw)
        if number is not None and 0 <= number <= MAX_BOUND:
            bounds[bound.param] = number
        else:
            detail = number_detail(raw, f"must be a whole number from 0 to {MAX_BOUND:,}")
            problems.append(Problem(bound.param, detail, raw))
    for low, high in BOUND_PAIRS:
        if low in bounds and high in bounds and bounds[high] < bounds[low]:
            problems.append(Problem(high, f"must not be less than {low} ({bounds[low]})", str(bounds[high])))
            del bounds[high]
    return bounds


def parse_filters(params: Params) -> tuple[CaseFilters, list[Problem]]:
    """The facet filters and date range of `params` (see the module docstring), and the
    problems found, in parameter order: includes, exclusions, dates, numeric bounds.

    A value that is not known is left out of the filters and reported with the nearest
    known values (terms compared by slug, name and synonyms). Several spellings of one
    value count once. Never raises. Cost: see the module docstring.
    """
    problems: list[Problem] = []
    given: dict[tuple[str, bool], list[str]] = {}
    for excluded in (False, True):
        for spec in FACETS:
            parameter = spec.exclude_param if excluded else spec.param
            values = _distinct(values_of(params, parameter))
            if len(values) > MAX_VALUES_PER_FACET:
                problems.append(
                    Problem(parameter, f"at most {MAX_VALUES_PER_FACET} values; the rest were left out")
                )
                values = values[:MAX_VALUES_PER_FACET]
            if values:
                given[(spec.name, excluded)] = values
    vocabulary = _Vocabulary({facet for facet, _ in given})
    include: dict[str, tuple[str, ...]] = {}
    exclude: dict[str, tuple[str, ...]] = {}
    labels: dict[tuple[str, str], str] = {}
    notes: list[str] = []
    for (facet, excluded), values in given.items():
        spec = FACETS_BY_NAME[facet]
        parameter = spec.exclude_param if excluded else spec.param
        target = exclude if excluded else include
        for value in values:
            into = facet
            if spec.kind == "year":
                choice, problem = _year(parameter, value)
            else:
                into, choice, problem = vocabulary.resolve(spec, parameter, value)
            if problem is not None:
                problems.append(problem)
                continue
            if choice is not None and into != facet:
                was, now = spec.label.lower(), FACETS_BY_NAME[into].label.lower()
                notes.append(moved_note(value, was, now, choice.label, excluded=excluded))
            if choice is not None and choice.value not in target.get(into, ()):
                target[into] = (*target.get(into, ()), choice.value)
                labels[(into, choice.value)] = choice.label
    after = _date(params, "published_after", problems)
    before = _date(params, "published_before", problems)
    if after and before and after > before:
        problems.append(
            Problem("published_before", "must not be earlier than published_after", before.isoformat())
        )
        before = None
    bounds = _bounds(params, problems)
    term_ids = {
        (facet, term.slug): term.id
        for facet, terms in vocabulary.terms.items()
        for term in terms
        if term.slug in (*include.get(facet, ()), *exclude.get(facet, ()))
    }
    filters = CaseFilters(
        include=include,
        exclude=exclude,
        published_after=after,
        published_before=before,
        bounds=bounds,
        labels=labels,
        term_ids=term_ids,
        notes=tuple(dict.fromkeys(notes)),
    )
    return filters, problems


@dataclass(frozen=True)
class SearchParams:
    """What a case list asks for: search text, filters and sort (`""`: the default, best
    match with text and newest first without)."""

    q: str = ""
    filters: CaseFilters = field(default_factory=CaseFilters)
    sort: str = ""

    @property
    def effective_sort(self) -> str:
        return self.sort or ("relevance" if self.q.strip() else "newest")


def parse_query_text(params: Params, problems: list[Problem], *, name: str = "q") -> str:
    """`q`, stripped, or `""` when it cannot be searched.

    Longer than `MAX_QUERY_CHARS`: a problem saying the limit and the length given (the
    text itself is not echoed), and `""`: the caller searches nothing rather than a cut
    query (the API answers 400, MCP a tool error, the page browses under a notice). A NUL
    in it is a problem whose suggestion is the text without it (the HTTP doors refuse it in
    `RejectNulMiddleware` with the same words, MCP as a tool error). `name` is the
    parameter's name at the caller's door (`query` for MCP)."""
    given = values_of(params, "q")
    if any("\x00" in value for value in given):
        without = " ".join(" ".join(given).replace("\x00", " ").split())[:MAX_QUERY_CHARS]
        problems.append(Problem(name, NUL_DETAIL, suggestions=(Choice(without, without),) if without else ()))
    q = _single(params, "q", problems) or ""
    if len(q) > MAX_QUERY_CHARS:
        problems.append(Problem(name, query_too_long(len(q))))
        return ""
    return q


def query_too_long(length: int) -> str:
    """The detail of a refused search text: the limit, how long it was, and where a long
    text belongs (a pasted traceback or log is the commonest one: log matching reads it)."""
    return (
        f"must be at most {MAX_QUERY_CHARS} characters long; it has {length:,} (a log or a"
        f" traceback goes to log matching: the /match/ page, POST /api/match, MCP match_log or"
        f" triage's text)"
    )


def _nearest_sort(value: str) -> list[str]:
    """The sort `value` most likely means: the one it names by a synonym (`best`,
    `best_match` -> relevance, `latest` -> newest; `SORT_SYNONYMS`) or is spelt like (a typo
    of a sort or of a synonym: `newst`, `lastest`), or none."""
    by_word = {spelling_key(word): sort for sort, words in SORT_SYNONYMS.items() for word in (sort, *words)}
    named = by_word.get(spelling_key(value))
    if named is not None:
        return [named]
    near = nearest_strings(spelling_key(value), by_word, limit=1)
    return [by_word[near[0]]] if near else []


def parse_sort(params: Params, problems: list[Problem]) -> str:
    """`sort` (or its alias `ordering`) as one of `SORTS`, `""` when not given (or blank).

    `relevance` without search text means the default (newest first), not a problem.
    """
    sort = _single(params, SORT_PARAM, problems)
    ordering = _single(params, ORDERING_ALIAS, problems)
    if sort is not None and sort not in SORTS:
        near = [Choice(s, s) for s in _nearest_sort(sort)]
        problems.append(Problem(SORT_PARAM, f"must be one of {', '.join(SORTS)}", sort, tuple(near)))
        sort = None
    if ordering is not None:
        if ordering not in ORDERINGS:
            # `ordering=newest`: a value of `sort`, or a word for one, is suggested in
            # `ordering`'s own spelling (`-published`), and the detail names `sort`'s values.
            spelled = {meaning: value for value, meaning in ORDERINGS.items()}
            near = [Choice(spelled[s], spelled[s]) for s in _nearest_sort(ordering)]
            detail = f"must be one of {', '.join(ORDERINGS)} (sort takes {', '.join(SORTS)})"
            problems.append(Problem(ORDERING_ALIAS, detail, ordering, tuple(near)))
        elif sort is None:
            sort = ORDERINGS[ordering]
        elif sort != ORDERINGS[ordering]:
            problems.append(Problem(ORDERING_ALIAS, "contradicts sort; give only sort", ordering))
    return sort or ""


def parse_search(params: Params) -> tuple[SearchParams, list[Problem]]:
    """Search text, filters and sort of a case list (see the module docstring), and every
    problem found, in the order q, filters, dates, sort. Never raises."""
    problems: list[Problem] = []
    q = parse_query_text(params, problems)
    filters, filter_problems = parse_filters(params)
    problems += filter_problems
    sort = parse_sort(params, problems)
    if sort == "relevance" and not q:
        sort = ""
    return SearchParams(q=q, filters=filters, sort=sort), problems


def distinct_case_values(field_name: str) -> list[str]:
    """Distinct non-null values of a value facet (a case field) over published cases,
    sorted: one query. The values a filter on that facet accepts."""
    if FACETS_BY_NAME.get(field_name) is None or FACETS_BY_NAME[field_name].kind != "value":
        raise ValueError(f"no distinct values for {field_name!r}")
    return list(
        Case.objects.published()
        .exclude(**{f"{field_name}__isnull": True})
        .order_by(field_name)
        .values_list(field_name, flat=True)
        .distinct()
    )
