"""Case search: query text plus facet filters, ranked hits with snippets, facet counts.

The query is parsed (`query.py`), widened with vocabulary synonyms, and run by the
database's own full-text engine (`backends.py`: SQLite FTS5 bm25 or PostgreSQL
ts_rank_cd over a weighted tsvector). Cases tagged with a term the query names count
up to `1 + TERM_BOOST` times more per such term (rare terms more, see `vocabulary_terms`).

Words of a query combine like a web search engine's: a case matching any of them is
found, and the share of the query's words (or their synonyms) a case matches multiplies
its score, so cases matching every word come first (`backends.Backend.rank`).

That lexical ranking is fused with a semantic one (sentence embeddings of each case's
passages, `semantic.py`) by reciprocal rank fusion (`fusion.py`), which also labels every
hit strong / possible / weak. Only strong and possible hits are matches: the total and
the facet counts count them; weak hits follow them on the list as partial matches.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from django.db.models.expressions import RawSQL

from incidents import store_cache
from incidents.models import Case, CaseQuerySet, Facet
from incidents.selectors import CaseFilters, filter_cases
from incidents.selectors.references import citing_cases_condition, split_reference_tokens
from incidents.selectors.vocabulary import terms_with_case_counts

from .backends import get_backend, render_snippet
from .facets import facet_counts
from .fusion import fuse
from .query import ParsedQuery, VocabTerm, build_lexicon, expand_with_vocabulary, parse_query
from .results import SearchHit, SearchResults
from .semantic import load_vectors, query_vector
from .spelling import correct

Sort = Literal["relevance", "newest", "oldest"]
SORTS: tuple[str, ...] = ("relevance", "newest", "oldest")
MAX_LIMIT = 100
# Lexical candidates read per query; the fused ranking, total and facets cover these plus
# the semantic candidates.
LEXICAL_DEPTH = 1000
# Partial matches (weak hits) listed after the last page of matches.
PARTIAL_SHOWN = 5
MAX_OFFSET = 1_000_000_000
# Facets whose terms widen queries and favour the cases tagged with them.
EXPAND_FACETS: tuple[str, ...] = (
    Facet.SYMPTOM,
    Facet.ROOT_CAUSE,
    Facet.COMPONENT,
    Facet.TOPIC,
    Facet.WORKLOAD,
)


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
        letters = " or single letters" if any(len(w) == 1 for w in parsed.dropped_stop_words) else ""
        return (
            f"The query has only very common words{letters} ({listed}), which are not searched:"
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
    facets: bool = True,
) -> SearchResults:
    """Published cases matching `query` (all when blank) and `filters`, best first.

    Returns up to `limit` matches from `offset` (`hits`, each with its calibrated
    probability as score, a confidence label strong / possible, an HTML-safe snippet whose
    matches are in <mark>, and the vocabulary terms the query named that the case carries),
    the total of matches, and after the last page of matches up to `PARTIAL_SHOWN` partial
    matches (`partial_hits`, label weak) with their number (`partial_total`), facet
    counts over the matches (topic, symptom, root_cause, component, organization, year,
    accelerator), a "did you mean" `suggestion` and notes (query cut short, only stop
    words, nothing matched well). Any string is accepted: nothing raises on odd input. A
    blank query is the browse view: `relevance` means newest first, scores and labels are
    None. Tokens naming an upstream record (`NVIDIA/nccl#1405`, `nccl#1405`, `arXiv:...`,
    a URL) are reference lookups: only the cases citing one of them (in `references` or
    `sources`) are searched, the rest of the query ranks them, and a note says so.

    Queries (fixed whatever the number of cases): with a query 13 (one more when a word
    is close to a vocabulary word but not one: whether any case has it) - vocabulary with
    case counts, the lexical ranking, the stored embeddings, snippets, the page's cases and
    their terms, 10 facet counts (none when nothing matches; one more query to order the
    matches by date when `sort` is newest or oldest); a query that only excludes words:
    11; no query: 10. `facets=False` (callers that show no counts) leaves `facets` empty
    and saves the 10 facet queries.
    """
    counts = facet_counts if facets else _no_facet_counts
    sort = sort if sort in SORTS else "relevance"
    # Past MAX_OFFSET every page is empty anyway; larger numbers overflow the databases' integers.
    offset, limit = min(max(0, int(offset)), MAX_OFFSET), max(1, min(int(limit), MAX_LIMIT))
    published = Case.objects.published()
    filtered = filter_cases(published, filters)
    references, rest = split_reference_tokens(query or "")
    if references:
        # `NVIDIA/nccl#1405`, `nccl#1405`, an arXiv id or a URL: the cases citing that record
        # (a subquery, no extra query), the rest of the query ranked among them.
        filtered = filtered.filter(citing_cases_condition(references))
        note = f"Cases citing {', '.join(references)} (references and sources)."
        results = _search(
            query=rest, filtered=filtered, sort=sort, offset=offset, limit=limit, counts=counts, whole=False
        )
        return dataclasses.replace(results, notes=[note, *results.notes])
    whole = _unfiltered(filters)
    return _search(
        query=query, filtered=filtered, sort=sort, offset=offset, limit=limit, counts=counts, whole=whole
    )


def _search(
    *, query: str, filtered: CaseQuerySet, sort: str, offset: int, limit: int, counts: Any, whole: bool
) -> SearchResults:
    """`search_cases` once the filters (and reference tokens) have made `filtered`;
    `whole` when that is every published case."""
    if not (query or "").strip():
        return _browse(filtered, sort=sort, offset=offset, limit=limit, browsing=True, counts=counts)

    terms = vocabulary_terms()
    parsed, suggestion = correct(query, parse_query(query), terms, get_backend())
    if not parsed.is_empty:
        parsed = expand_with_vocabulary(parsed, build_lexicon(terms))
    notes = list(parsed.notes)
    if suggestion:
        notes.append(f"Some words are in no case: searched for “{suggestion}” instead.")
    if parsed.is_empty:
        return SearchResults(
            hits=[], total=0, facets=counts(filtered.none()), notes=[*notes, _empty_note(query, parsed)]
        )

    backend = get_backend()
    if not parsed.groups:
        # Only exclusions: every filtered case without the excluded words, newest first.
        sql, params = backend.match_sql(parsed.excluded)
        remaining = filtered.exclude(id__in=RawSQL(sql, params))
        notes.append("The query only excludes words: showing every case without them.")
        results = _browse(
            remaining,
            sort="oldest" if sort == "oldest" else "newest",
            offset=offset,
            limit=limit,
            counts=counts,
        )
        return SearchResults(hits=results.hits, total=results.total, facets=results.facets, notes=notes)

    allowed = filtered
    if parsed.excluded:
        allowed = filtered.exclude(id__in=RawSQL(*backend.match_sql(parsed.excluded)))
    rows = _lexical(backend, parsed, filtered)
    vector = query_vector(semantic_text(query))
    semantic = None
    if vector is not None:
        # Unfiltered, every search reads the same N vectors: kept in this process per store
        # generation instead of read and decoded again (about 8 MB at 10,000 cases).
        every = not parsed.excluded and whole
        vectors = store_cache.local("vectors", load_vectors) if every else load_vectors(allowed)
        semantic = vectors.case_scores(vector)
    ranked = fuse(rows, semantic)
    matches = [c for c in ranked if c.is_match]
    if sort != "relevance" and matches:
        order = ("published", "id") if sort == "oldest" else ("-published", "-id")
        dated = list(
            Case.objects.filter(id__in=[c.case_id for c in matches])
            .order_by(*order)
            .values_list("id", flat=True)
        )
        by_id = {c.case_id: c for c in matches}
        weak = ranked[len(matches) :]
        matches = [by_id[i] for i in dated]
    else:
        weak = ranked[len(matches) :]
    page = matches[offset : offset + limit]
    # Partial matches follow the last page of matches, never paged further themselves.
    shown_weak = weak[: min(PARTIAL_SHOWN, limit)] if offset + limit >= len(matches) else []
    shown = [*page, *shown_weak]

    snippets = backend.snippets(parsed, [c.case_id for c in shown])
    cases = Case.objects.filter(id__in=[c.case_id for c in shown]).with_summary().in_bulk()
    named = {t.id for t in parsed.terms}
    hits = []
    for candidate in shown:
        case = cases.get(candidate.case_id)
        if case is None:
            continue
        carried = [
            t.name
            for t in [
                *case.topics,
                *case.terms_of(Facet.WORKLOAD),
                *case.symptom_tags,
                *case.components,
                case.root_cause_category,
            ]
            if t.id in named
        ]
        hits.append(
            SearchHit(
                case=case,
                score=round(candidate.fused, 6),
                snippet=render_snippet(snippets.get(candidate.case_id)),
                matched_terms=tuple(carried),
                confidence=candidate.confidence,
            )
        )
    if not matches:
        notes.append(
            "No case matches this query well: the closest cases are listed as partial matches."
            if weak
            else "No case matches this query with these filters."
        )
    return SearchResults(
        hits=[h for h in hits if not h.is_partial],
        partial_hits=[h for h in hits if h.is_partial],
        total=len(matches),
        facets=counts(filtered.filter(id__in=[c.case_id for c in matches])),
        notes=notes,
        terms=[t.name for t in parsed.terms],
        partial_total=len(weak),
        suggestion=suggestion,
    )


def _unfiltered(filters: CaseFilters | None) -> bool:
    """Whether `filters` keep every published case."""
    return filters is None or not (
        any(filters.include.values())
        or any(filters.exclude.values())
        or filters.published_after
        or filters.published_before
    )


def semantic_text(query: str) -> str:
    """What the encoder reads of a query: its words and phrases, without exclusions or
    operators (stop words kept: they carry meaning for a sentence model; lone letters, which
    the lexical search leaves out, too, so `hang b` ranks as `hang`)."""
    return " ".join(
        atom.text() for group in parse_query(query).groups for atom in group if not atom.is_single_letter
    )


def _lexical(backend, parsed: ParsedQuery, filtered) -> list:
    """The lexical ranking (best first, at most `LEXICAL_DEPTH`): one query.

    Several words are OR-ed and ranked by the share of them a case matches (coordination,
    `backends.Backend.rank`), each row carrying that share for the confidence label.
    """
    candidates = filtered.order_by().values("id").query.sql_with_params()
    term_weights = {t.id: round(t.weight, 4) for t in parsed.terms if t.facet != Facet.ROOT_CAUSE}
    root_cause_weights = {t.id: round(t.weight, 4) for t in parsed.terms if t.facet == Facet.ROOT_CAUSE}
    expanded = parsed.literal_groups != parsed.groups
    loose = ParsedQuery(
        groups=[[a for g in parsed.groups for a in g]],
        literal_groups=parsed.literal_groups,
        excluded=parsed.excluded,
        terms=parsed.terms,
    )
    rows, _ = backend.rank(
        loose,
        candidates,
        coordinate=parsed.groups,
        literal=parsed.literal_groups if expanded else (),
        term_weights=term_weights,
        root_cause_weights=root_cause_weights,
        sort="relevance",
        offset=0,
        limit=LEXICAL_DEPTH,
    )
    return rows


def _no_facet_counts(cases) -> dict:
    return {}


def _browse(
    cases, *, sort: str, offset: int, limit: int, browsing: bool = False, counts=facet_counts
) -> SearchResults:
    ordered = cases.order_by("published", "id") if sort == "oldest" else cases.newest_first()
    page = list(ordered.with_summary()[offset : offset + limit])
    return SearchResults(
        hits=[SearchHit(case=c, score=None, snippet=None) for c in page],
        total=cases.count(),
        facets=counts(cases),
        browsing=browsing,
    )
