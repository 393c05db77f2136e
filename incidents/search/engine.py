"""Case search: query text plus facet filters, ranked hits with snippets, facet counts.

The query is parsed (`query.py`), widened with vocabulary synonyms, and run by the
database's own full-text engine (`backends.py`: SQLite FTS5 bm25 or PostgreSQL
ts_rank_cd over a weighted tsvector). Cases tagged with a term the query names count
up to `1 + TERM_BOOST` times more per such term (rare terms more, see `vocabulary_terms`).

Words of a query combine like a web search engine's: a case matching any of them is
found, and the share of the query's words (or their synonyms) a case matches multiplies
its score, so cases matching every word come first (`backends.Backend.rank`). On the
eval/ benchmark this ranks better than requiring every word (`MATCH_ALL_FIRST = True`:
AND, then OR only when nothing matches them all), which stays available.
"""

from __future__ import annotations

import functools
import math
from typing import Literal

from django.db.models.expressions import RawSQL

from incidents.models import Case, Facet
from incidents.selectors import CaseFilters, filter_cases
from incidents.selectors.vocabulary import terms_with_case_counts

from .backends import get_backend, render_snippet
from .facets import facet_counts
from .query import ParsedQuery, VocabTerm, build_lexicon, expand_with_vocabulary, parse_query
from .results import SearchHit, SearchResults

Sort = Literal["relevance", "newest", "oldest"]
SORTS: tuple[str, ...] = ("relevance", "newest", "oldest")
MAX_LIMIT = 100
MAX_OFFSET = 1_000_000_000
# True: a query of several words first needs every word (AND), and falls back to any word
# (OR, ranked by how many words match) only when nothing matches them all.
MATCH_ALL_FIRST = False
# Facets whose terms widen queries and favour the cases tagged with them.
EXPAND_FACETS: tuple[str, ...] = (Facet.SYMPTOM, Facet.ROOT_CAUSE, Facet.COMPONENT, Facet.TOPIC)


def vocabulary_terms() -> list[VocabTerm]:
    """Every term of the facets in `EXPAND_FACETS`: name, synonyms and rarity (one query).

    `weight` is how much naming the term favours the cases tagged with it:
    log(N / n) / log(N) for a term on n of N published cases, so 1 for a term on one case
    and 0 for a term on every case (`NVIDIA GPU` or the `Training` topic say little).
    """
    terms = terms_with_case_counts(EXPAND_FACETS)
    total = max((t.case_count for t in terms if t.facet == Facet.ROOT_CAUSE), default=0)
    total = max(sum(t.case_count for t in terms if t.facet == Facet.ROOT_CAUSE), total, 2)
    return [
        VocabTerm(
            id=t.id,
            facet=t.facet,
            name=t.name,
            forms=(t.name, *t.synonyms),
            weight=max(0.0, math.log(total / max(t.case_count, 1)) / math.log(total)),
        )
        for t in terms
    ]


def interpret(query: str, terms: list[VocabTerm] | None = None) -> ParsedQuery:
    """Parse `query` and widen it with the vocabulary (one query unless `terms` is given)."""
    parsed = parse_query(query)
    if parsed.is_empty:
        return parsed
    return expand_with_vocabulary(parsed, build_lexicon(terms if terms is not None else vocabulary_terms()))


def _empty_note(query: str, parsed: ParsedQuery) -> str:
    if parsed.dropped_stop_words:
        listed = ", ".join(sorted(set(parsed.dropped_stop_words))[:8])
        return (
            f"The query has only very common words ({listed}), which are not searched:"
            " add a more specific word, such as an error message or a component."
        )
    return (
        "The query has no words to search for (only punctuation or symbols):"
        " type a word, an error message or a component."
    )


def search_cases(
    *,
    query: str = "",
    filters: CaseFilters | None = None,
    sort: Sort | str = "relevance",
    offset: int = 0,
    limit: int = 20,
) -> SearchResults:
    """Published cases matching `query` (all when blank) and `filters`, best first.

    Returns up to `limit` hits from `offset` (each with a score, an HTML-safe snippet whose
    matches are in <mark>, and the vocabulary terms the query named that the case carries),
    the total of matching cases, facet counts over all of them (topic, symptom, root_cause,
    component, organization, year, accelerator) and notes (query cut short, only stop
    words, OR fallback). Any string is accepted: nothing raises on odd input. Without a
    query `relevance` means newest first and scores are None.

    Queries (fixed whatever the number of cases): with a query 12 - vocabulary with case
    counts, ranked page with its total, snippets, the page's cases and their terms, 7 facet
    counts (one more if the page is past the end, or for the OR fallback when
    `MATCH_ALL_FIRST`); a query that only excludes words: 11; no query: 10.
    """
    sort = sort if sort in SORTS else "relevance"
    # Past MAX_OFFSET every page is empty anyway; larger numbers overflow the databases' integers.
    offset, limit = min(max(0, int(offset)), MAX_OFFSET), max(1, min(int(limit), MAX_LIMIT))
    published = Case.objects.published()
    filtered = filter_cases(published, filters)
    if not (query or "").strip():
        return _browse(filtered, sort=sort, offset=offset, limit=limit)

    parsed = interpret(query)
    notes = list(parsed.notes)
    if parsed.is_empty:
        return SearchResults(
            hits=[], total=0, facets=facet_counts(filtered.none()), notes=[*notes, _empty_note(query, parsed)]
        )

    backend = get_backend()
    if not parsed.groups:
        # Only exclusions: every filtered case without the excluded words, newest first.
        sql, params = backend.match_sql(parsed.excluded)
        remaining = filtered.exclude(id__in=RawSQL(sql, params))
        notes.append("The query only excludes words: showing every case without them.")
        results = _browse(
            remaining, sort="oldest" if sort == "oldest" else "newest", offset=offset, limit=limit
        )
        return SearchResults(hits=results.hits, total=results.total, facets=results.facets, notes=notes)

    candidates = filtered.order_by().values("id").query.sql_with_params()
    term_weights = {t.id: round(t.weight, 4) for t in parsed.terms if t.facet != Facet.ROOT_CAUSE}
    root_cause_weights = {t.id: round(t.weight, 4) for t in parsed.terms if t.facet == Facet.ROOT_CAUSE}
    rank = functools.partial(
        backend.rank,
        term_weights=term_weights,
        root_cause_weights=root_cause_weights,
        sort=sort,
        offset=offset,
        limit=limit,
    )
    expanded = parsed.literal_groups != parsed.groups
    if MATCH_ALL_FIRST or len(parsed.groups) == 1:
        rows, total = rank(parsed, candidates, literal=parsed.literal_groups if expanded else ())
    else:
        total = 0
    if total == 0 and len(parsed.groups) > 1:
        loose = ParsedQuery(
            groups=[[a for g in parsed.groups for a in g]],
            literal_groups=parsed.literal_groups,
            excluded=parsed.excluded,
            terms=parsed.terms,
        )
        rows, total = rank(
            loose, candidates, coordinate=parsed.groups, literal=parsed.literal_groups if expanded else ()
        )
        if total and MATCH_ALL_FIRST:
            notes.append("No case matches every word: showing cases that match some of them, best first.")
        parsed = loose
    if total is None:  # the page is past the end
        total = _count_matching(backend, parsed, filtered)

    snippets = backend.snippets(parsed, [r.case_id for r in rows])
    cases = Case.objects.filter(id__in=[r.case_id for r in rows]).with_summary().in_bulk()
    named = {t.id for t in parsed.terms}
    hits = []
    for row in rows:
        case = cases.get(row.case_id)
        if case is None:
            continue
        carried = [
            t.name
            for t in [*case.topics, *case.symptom_tags, *case.components, case.root_cause_category]
            if t.id in named
        ]
        hits.append(
            SearchHit(
                case=case,
                score=round(row.score, 6),
                snippet=render_snippet(snippets.get(row.case_id)),
                matched_terms=tuple(carried),
            )
        )
    if not total:
        notes.append("No case matches this query with these filters.")
    matching = filtered.filter(id__in=_matching_subquery(backend, parsed))
    return SearchResults(
        hits=hits,
        total=total,
        facets=facet_counts(matching),
        notes=notes,
        terms=[t.name for t in parsed.terms],
    )


def _matching_subquery(backend, parsed: ParsedQuery) -> RawSQL:
    """The ids of indexed cases matching `parsed`, as an SQL subquery expression."""
    return RawSQL(*backend.query_sql(parsed))


def _count_matching(backend, parsed: ParsedQuery, filtered) -> int:
    return filtered.filter(id__in=_matching_subquery(backend, parsed)).count()


def _browse(cases, *, sort: str, offset: int, limit: int) -> SearchResults:
    ordered = cases.order_by("published", "id") if sort == "oldest" else cases.newest_first()
    page = list(ordered.with_summary()[offset : offset + limit])
    return SearchResults(
        hits=[SearchHit(case=c, score=None, snippet=None) for c in page],
        total=cases.count(),
        facets=facet_counts(cases),
    )
