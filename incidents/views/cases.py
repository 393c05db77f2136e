"""`/cases/` (search and browse in one page) and `/cases/<id>` (one case)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect
from django.urls import reverse

from incidents import limits, search, selectors
from incidents.search.citing_notes import record_words
from incidents.search.planning import corrected_note
from incidents.search.results import FacetCount
from incidents.selectors import (
    FILTER_FACETS,
    FILTER_PARAMS,
    SORTS,
    Choice,
    Problem,
    facet_label,
    find_case,
    parse_search,
)
from incidents.selectors.pasted_log import looks_like_log
from incidents.selectors.spelling import names_meant

from .citation import bibtex
from .common import not_found_page, render_page
from .state import DATE_PARAMS, SearchState, given_page

CASES_PER_PAGE = limits.PAGE_CASES
FACET_VALUES_SHOWN = 8  # more values of a facet fold into a "more" disclosure
MAX_SUGGESTIONS = 5  # each costs a count: keep an empty page cheap
SIMILAR_SHOWN = 5
MCP_PATH = "/mcp"


@dataclass(frozen=True)
class FacetValue:
    value: str
    label: str
    count: int
    selected: bool
    toggle_url: str  # adds the value, or removes it when selected
    exclude_url: str


@dataclass(frozen=True)
class FacetGroup:
    facet: str
    label: str
    values: list[FacetValue]
    shown: list[FacetValue]
    folded: list[FacetValue]


@dataclass(frozen=True)
class Suggestion:
    text: str
    url: str
    total: int


def _facet_groups(state: SearchState, facets: dict[str, list[FacetCount]], base: str) -> list[FacetGroup]:
    groups = []
    for facet in FILTER_FACETS:
        selected = state.include.get(facet, ())
        values = [
            FacetValue(
                value=fc.value,
                label=fc.label,
                count=fc.count,
                selected=fc.value in selected,
                toggle_url=(
                    state.without_inclusion(facet, fc.value)
                    if fc.value in selected
                    else state.adding(facet, fc.value)
                ).url(base),
                exclude_url=state.excluding(facet, fc.value).url(base),
            )
            for fc in facets.get(facet, [])
        ]
        # Selected values stay visible even when they are not among the most frequent.
        shown = [v for i, v in enumerate(values) if i < FACET_VALUES_SHOWN or v.selected]
        folded = [v for v in values if v not in shown]
        groups.append(FacetGroup(facet, facet_label(facet), values, shown, folded))
    return groups


def _notes(results: search.SearchResults) -> list[str]:
    """The search's notes but those the page says in its own words: that a corrected query
    was searched (once, with the corrected query as a link, `results.suggestion`, not as a
    "Did you mean" beside a note that it was already searched), and that nothing matched
    (`results.empty_result_notes`: the empty result's paragraphs say it, linking the
    retracted cases that would have)."""
    said = set(results.empty_result_notes)
    if results.suggestion:
        said.add(corrected_note(results.suggestion))
    return [note for note in results.notes if note not in said]


def _suggestions(state: SearchState, labels: dict[tuple[str, str], str], base: str) -> list[Suggestion]:
    """Ways out of an empty result: drop one filter, the filters, or the query; each with its
    total, those that still find nothing left out, most results first."""
    candidates: list[tuple[str, SearchState]] = []
    for chip in state.chips(base, labels):
        verb = "stop excluding" if chip.excluded else "remove"
        candidates.append(
            (f"{verb.capitalize()} {chip.facet_label.lower()} “{chip.label}”", state.without_chip(chip))
        )
    if state.q and state.has_filters():
        candidates.append(("Search all cases, without the filters", state.without_filters()))
        candidates.append((f"Keep the filters, drop the search “{state.q}”", state.without_query()))
    suggestions: list[Suggestion] = []
    for text, other in candidates:
        url = other.url(base)
        if any(s.url == url for s in suggestions):
            continue
        if len(suggestions) == MAX_SUGGESTIONS:
            break
        total = search.search_cases(
            query=other.q, filters=other.filters(), sort=other.effective_sort, limit=0, facets=False
        ).total
        suggestions.append(Suggestion(text, url, total))
    # Only ways out that lead somewhere, the widest first.
    return sorted((s for s in suggestions if s.total), key=lambda s: -s.total)


BOUND_FIELDS = (
    ("min_accelerators", "Accelerators, at least"),
    ("max_accelerators", "Accelerators, at most"),
    ("min_nodes", "Nodes, at least"),
    ("max_nodes", "Nodes, at most"),
)


def _bounds_form(state: SearchState) -> dict[str, list]:
    """The numeric bounds as a small GET form that keeps every other filter of the page."""
    names = {name for name, _ in BOUND_FIELDS}
    return {
        "hidden": [(k, v) for k, v in state.params(page=False) if k not in names],
        "fields": [(name, label, state.bounds.get(name, "")) for name, label in BOUND_FIELDS],
    }


def _api_twin(state: SearchState) -> str:
    """`/api/cases/` with the same query, filters, order and page as this page (both read
    them with `selectors.parse_search`)."""
    params = state.params()
    return reverse("api:case-list") + ("?" + urlencode(params) if params else "")


@dataclass(frozen=True)
class Notice:
    """A parameter the page could not use, said in words, with links that fix it."""

    text: str
    prompt: str  # "Did you mean" or "Choose from"
    fixes: list[tuple[str, str]]  # (label, URL of the page with the fix applied)


def _notice(problem: Problem, state: SearchState, base: str) -> Notice:
    fixes: list[tuple[str, str]] = []
    for choice in problem.suggestions:
        if problem.facet is not None:
            excluded = problem.parameter.startswith("exclude_")
            fixed = (state.excluding if excluded else state.adding)(problem.facet, choice.value)
        elif problem.parameter == "sort":
            fixed = state.sorted_by(choice.value)
        else:
            continue
        fixes.append((choice.label, fixed.url(base)))
    prompt = "Did you mean" if problem.near else "Choose from"
    return Notice(problem.message(suggest=not fixes), prompt, fixes)


# `ordering` too: the shared parser (`selectors.parse_search`) reads it, as the API does (the
# API's older name of `sort`), and the page said it was not used while ordering by it.
PAGE_PARAMS = ("q", "sort", "ordering", "page")
MAX_UNKNOWN_NAMED, MAX_NAME_SHOWN = 5, 60  # a crafted query string cannot flood the page


def _unknown_parameters(query) -> list[Problem]:
    """A parameter the page does not read (`topc=...`) is named in a notice with the
    parameters it does read it may mean (`spelling.names_meant`: `query` -> `q`, then the
    nearest), as the API names it in its 400, never dropped in silence."""
    accepted = (*PAGE_PARAMS, *FILTER_PARAMS, *DATE_PARAMS)
    unknown = [name[:MAX_NAME_SHOWN] for name in query if name not in accepted][:MAX_UNKNOWN_NAMED]
    return [
        Problem(
            name,
            "is not a parameter of this page, so it was not used",
            suggestions=tuple(Choice(n, n) for n in names_meant(name, accepted, limit=3)),
        )
        for name in unknown
    ]


def _page_problem(raw: str | None) -> list[Problem]:
    """`page` as the API reads it (`state.given_page`: a blank one is not given), in its
    words (`selectors.integer_detail`): `page=0` is `must be between 1 and 100000` at both."""
    detail = None if raw is None else selectors.integer_detail(raw, minimum=1, maximum=limits.PAGE_NUMBER)
    return [] if detail is None else [Problem("page", detail, raw)]


def _query_box(state: SearchState, query: QueryDict, problems: list[Problem]) -> str:
    """The text of the search box: the query searched, or else the one refused (too long),
    so the person can shorten it rather than type it again. Never searched nor linked:
    every link of the page is built from `state`, which left it out."""
    if state.q or not any(problem.parameter == "q" for problem in problems):
        return state.q
    return query.get("q", "").strip()


def _page_numbers(current: int, last: int) -> list[int | None]:
    """Page links to show: first, last and two either side of `current`; None marks a gap."""
    wanted = sorted({1, last, *range(max(1, current - 2), min(last, current + 2) + 1)})
    numbers: list[int | None] = []
    for n in wanted:
        if numbers and n - (numbers[-1] or 0) > 1:
            numbers.append(None)
        numbers.append(n)
    return numbers


def case_list(request: HttpRequest) -> HttpResponse:
    """`/cases/`: ranked search with snippets when `q` is given, newest first otherwise.

    Query parameters are read by `selectors.parse_search` (described in
    `incidents.views.state`); a value it cannot use is left out and shown in a notice with
    the nearest valid values as links (a query over `MAX_QUERY_CHARS` is not searched: the
    page browses, its text kept in the search box only). Renders `CASES_PER_PAGE` hits, facet counts over the
    whole result, active filters as removable chips, sort choices and pagination that keeps
    the state. A page past the last redirects to the last page; an empty result lists ways
    out (each with its total). Data: `selectors.parse_search`, `search.search_cases`.
    """
    base = reverse("incidents:case-list")
    parsed, problems = parse_search(request.GET)
    problems += _page_problem(given_page(request.GET))
    problems += _unknown_parameters(request.GET)
    state = SearchState.from_query(request.GET).resolved(parsed)
    results = search.search_cases(
        query=state.q,
        # With what the parser said of them (`topic=training` is the workload), as at the API.
        filters=replace(state.filters(), notes=parsed.filters.notes),
        sort=state.effective_sort,
        offset=(state.page - 1) * CASES_PER_PAGE,
        limit=CASES_PER_PAGE,
    )
    last_page = max(1, math.ceil(results.total / CASES_PER_PAGE))
    if state.page > last_page:
        return redirect(state.with_page(last_page).url(base))

    labels = parsed.filters.labels
    suggestions = _suggestions(state, labels, base) if not results.total else []

    json_url = _api_twin(state)
    query_box = _query_box(state, request.GET, problems)
    # A text too long to search is most often pasted log lines: instead of the whole list
    # under a notice (read as its results), the page offers to match them as a log (the
    # /match/ form's `text`), the API's words about doors and MCP tools left to the API.
    log_text = query_box if len(query_box) > selectors.MAX_QUERY_CHARS else ""
    # Log lines short enough to search are searched, and offered to log matching too: it
    # reads them line by line, which a search of all their words together does not.
    log_offer = query_box if not log_text and looks_like_log(query_box) else ""
    return render_page(
        request,
        "incidents/case_list.html",
        {
            "state": state,
            "query_box": query_box,
            "log_text": log_text,
            "log_offer": log_offer,
            "max_query_chars": selectors.MAX_QUERY_CHARS,
            "notices": [
                _notice(problem, state, base)
                for problem in problems
                if not (log_text and problem.parameter == "q")
            ],
            "results": results,
            "notes": _notes(results),
            "hits": results.hits,
            "facet_groups": _facet_groups(state, results.facets, base),
            "bounds_form": _bounds_form(state),
            "base_url": base,
            "chips": state.chips(base, labels),
            "clear_url": state.without_filters().url(base),
            "sorts": [
                (key, label, state.sorted_by(key).url(base), key == state.effective_sort)
                for key, label in SORTS.items()
                if key != "relevance" or state.q
            ],
            "suggestions": suggestions,
            # Records no case cites: their words to search instead (`citing_notes.record_words`).
            "uncited_searches": [
                (word, replace(state, q=word, page=1).url(base))
                for word in dict.fromkeys(filter(None, map(record_words, results.uncited)))
            ],
            "suggestion_url": (
                replace(state, q=results.suggestion, page=1).url(base) if results.suggestion else None
            ),
            "first_number": (state.page - 1) * CASES_PER_PAGE + 1,
            "last_number": (state.page - 1) * CASES_PER_PAGE + len(results.hits),
            "page_links": [
                (n, state.with_page(n).url(base) if n else None) for n in _page_numbers(state.page, last_page)
            ],
            "prev_url": state.with_page(state.page - 1).url(base) if state.page > 1 else None,
            "next_url": state.with_page(state.page + 1).url(base) if state.page < last_page else None,
            "last_page": last_page,
            "feed_url": reverse("incidents:feed-all"),
        },
        json_url=json_url,
    )


def case_detail(request: HttpRequest, case_id: str) -> HttpResponse:
    """`/cases/<id>`: every section of one case, its hand-linked related cases, the computed
    similar cases with their reasons, URLs for tools, and a BibTeX citation.

    Other spellings of the id (`il-0428`, `IL0428`, `il428`, `428`) and ids merged into
    another case redirect permanently; an unknown id gives a 404 page naming the closest ids
    and the vocabulary terms spelt like it. A retracted case shows a notice with the reason.
    Data: `selectors.find_case`, `selectors.related_cases`, `search.similar_cases`,
    `selectors.merged_from` (the cases merged into it, named in its header).
    """
    lookup = find_case(case_id)
    if lookup.canonical_id is not None:
        return redirect("incidents:case-detail", case_id=lookup.canonical_id, permanent=True)
    case = lookup.case
    if case is None:
        return not_found_page(
            request, what=f"No case {case_id}", closest_ids=lookup.closest, text=case_id, case_hint=True
        )
    json_url = reverse("api:case-detail", args=[case.id])
    page_url = request.build_absolute_uri(case.get_absolute_url())
    related = selectors.related_cases(case)
    return render_page(
        request,
        "incidents/case_detail.html",
        {
            "case": case,
            # The duplicates merged into this case: their ids lead here, their histories
            # are their own (the merged case's history links back to this one already).
            "merged_from": selectors.merged_from(case),
            "related": related,
            "related_ids": {other.id for other in related},
            # A case linked by an editor is listed once, under Related cases.
            # (similar case, fallback reasons): the engine's reasons are in words already.
            "similar": [
                (s, []) for s in search.similar_cases(case, limit=SIMILAR_SHOWN, without_hand_linked=True)
            ],
            "tool_urls": {
                "json": request.build_absolute_uri(json_url),
                "similar": request.build_absolute_uri(reverse("api:case-similar", args=[case.id])),
                "mcp": request.build_absolute_uri(MCP_PATH),
            },
            "page_url": page_url,
            "bibtex": bibtex(case, page_url),
        },
        json_url=json_url,
    )
