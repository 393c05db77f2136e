"""Search, stage 3 of 3: hydration (`hydrate`), from ranked ids to the page a reader sees.

The page of matches (and after the last page of matches a few partial ones) is loaded in
bulk with what a list entry shows, each hit gets its snippet (`snippets.parse_snippet` of
the backend's marked passage) and the vocabulary terms the query named that the case
carries, and the matches are counted per facet value. A fixed number of queries whatever
the number of cases.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from django.core.exceptions import EmptyResultSet

from incidents import store_cache
from incidents.models import Case, CaseQuerySet, Facet
from incidents.selectors.facets import facet_label
from incidents.selectors.lookup import retracted_matches_note
from incidents.selectors.stats import published_count

from .backends import Marked, get_backend
from .citing_notes import citing_note, uncited_note
from .coordination import numbers_after_words
from .facets import facet_counts
from .fusion import POSSIBLE, STRONG, Candidate
from .negated_marks import (
    failure_spellings,
    negated_failure,
    negated_spellings,
    typed_failures,
    unmarked,
    without_spellings,
)
from .planning import SearchPlan
from .query import ParsedQuery
from .ranking import Ranking
from .results import MEANING_ONLY, NAMED_BY_ID, FacetCount, SearchHit, SearchResults, why_listed
from .snippets import parse_snippet
from .surveys import survey_label
from .why_words import identifier_numbers

# Partial matches (weak hits) listed after the last page of matches.
PARTIAL_SHOWN = 5
# The score of a case citing a record the query names, with nothing else to rank it by: a
# certainty (the score is the probability that the case answers the query), labelled strong.
REFERENCE_SCORE = 1.0

Counts = Callable[[CaseQuerySet], dict[str, list[FacetCount]]]


def hydrate(plan: SearchPlan, ranking: Ranking) -> SearchResults:
    """The results of `plan` ranked as `ranking`. Queries: for a ranked plan the snippets,
    the page's cases and their terms (3), and the facet counts (1; none when nothing
    matches, or with the store cache on: `match_facets`); for a listing the page's cases
    and their terms, the count and the facet counts (4). No facet count when `plan.facets`
    is False. Browsing every case, or a few facet values (`SearchPlan.shared_counts`), the
    count and the facet counts come from the
    store cache when it is on (`store_cache.cached`: computed once per store generation and
    filter set; browsing every case shares the stats' count): at 100,000 cases they were
    most of a filtered listing's cost on SQLite (108 ms p50 from one client in `make
    bench`), paid again for every page of the same filters. Other filters (dates, bounds,
    exclusions, many values) are counted each time: their keys would be the client's to mint."""
    counts: Counts = facet_counts if plan.facets else _no_facet_counts
    notes = list(plan.notes)
    if ranking.listing is not None:
        listing = ranking.listing
        listed = listing.with_summary()[plan.offset : plan.offset + plan.limit]
        if plan.kind == "browse" and plan.whole:
            total = published_count()
            facets = store_cache.cached("published-facets", lambda: counts(listing)) if plan.facets else {}
        elif plan.kind == "browse" and plan.shared_counts and (key := _listing_key(listing, plan.facets)):
            total, facets = store_cache.cached(key, lambda: (listing.count(), counts(listing)))
        else:
            total, facets = listing.count(), counts(listing)
        nothing_cited = not total and _cited_by_none(plan)
        if nothing_cited:
            notes = _uncited(plan, notes)
        return SearchResults(
            hits=[_listed_hit(plan, case) for case in listed],
            total=total,
            facets=facets,
            notes=_once(notes),
            browsing=plan.kind == "browse" and not plan.references and not plan.case_ids,
            reading_notes=tuple(_once(notes)),
            uncited=plan.references if nothing_cited else (),
            # The search page says it in its own paragraph, with links.
            empty_result_notes=(notes[-1],) if nothing_cited else (),
        )
    if plan.kind == "nothing" or plan.parsed is None:
        said = _once(notes)
        return SearchResults(
            hits=[], total=0, facets=counts(plan.cases.none()), notes=said, reading_notes=tuple(said)
        )

    matches, weak = ranking.matches, ranking.weak
    page = matches[plan.offset : plan.offset + plan.limit]
    # Partial matches follow the last page of matches, never paged further themselves.
    shown_weak = weak[: min(PARTIAL_SHOWN, plan.limit)] if plan.offset + plan.limit >= len(matches) else []
    hits = _hits(plan, plan.parsed, [*page, *shown_weak], ranking.rowids)
    if ranking.capped_at:
        notes.append(
            f"Only the {ranking.capped_at:,} cases that best match these words were ranked: more contain"
            " some of them, so the total and the counts cover those ranked; add words or filters"
            " to narrow it."
        )
    # What the search page's empty result says in its own paragraphs, with links: the
    # retracted cases that would have matched, and that partial matches follow.
    said_empty: list[str] = []
    uncited: tuple[str, ...] = ()
    reading = list(notes)
    if not matches:
        if ranking.retracted:
            # Not "no case matches": the knowledge exists, and was withdrawn (and why).
            said_empty.append(
                retracted_matches_note(ranking.retracted, filtered=plan.filtered, named=plan.retracted_named)
            )
            reading.append(said_empty[-1])
        if weak:
            published = "published case" if ranking.retracted else "case"
            said_empty.append(
                f"No {published} matches this query well: the closest cases are listed as partial matches."
            )
        notes.extend(said_empty)
        if not said_empty and _cited_by_none(plan):
            # That no case cites the record is the answer, not that none matches the words.
            notes = _uncited(plan, notes)
            said_empty.append(notes[-1])
            uncited = plan.references
        elif not said_empty:
            notes.append(
                "No case matches this query with these filters."
                if plan.filtered
                else "No case matches this query."
            )
    return SearchResults(
        hits=[h for h in hits if not h.is_partial],
        partial_hits=[h for h in hits if h.is_partial],
        total=len(matches),
        facets=_match_counts(plan, [c.case_id for c in matches]),
        notes=_once(notes),
        terms=[t.name for t in plan.parsed.terms],
        partial_total=len(weak),
        suggestion=plan.suggestion,
        retracted_matches=tuple(case_id for case_id, _ in ranking.retracted),
        empty_result_notes=tuple(said_empty),
        reading_notes=tuple(_once(reading)),
        uncited=uncited,
    )


def _cited_by_none(plan: SearchPlan) -> bool:
    """Whether the query names upstream records no case cites, published or retracted, with
    no filter and no case id beside them: then that is what the answer says
    (`citing_notes.uncited_note`). Queries: none without records, else at most 2 (whether
    a published, then a retracted case cites them), asked of empty answers only."""
    if not plan.references or plan.case_ids or plan.filtered:
        return False
    retracted = plan.retracted
    return not plan.cases.exists() and (retracted is None or not retracted.exists())


def _uncited(plan: SearchPlan, notes: list[str]) -> list[str]:
    """`notes` with "Cases citing X" replaced by `citing_notes.uncited_note`, put last."""
    over = citing_note(plan.references)
    return [*(n for n in notes if n != over), uncited_note(plan.references)]


def _once(notes: list[str]) -> list[str]:
    """`notes` in order, each said once: the notes of filters, the plan and the ranking are
    written apart, and a reader told the same thing twice wonders what differs."""
    return list(dict.fromkeys(notes))


def _listed_hit(plan: SearchPlan, case: Case) -> SearchHit:
    """A case of a listing: unscored when browsing, but a strong match of score
    `REFERENCE_SCORE` when the query names a record the case cites or the case's own id (a
    lookup without words, or with words it only excludes): an exact reference is the
    strongest evidence there is, and every front door shows the label of every hit."""
    if plan.references or plan.case_ids:
        why = NAMED_BY_ID if case.id in plan.case_ids else why_listed(None, (), references=plan.references)
        return SearchHit(case=case, score=REFERENCE_SCORE, snippet=None, confidence=STRONG, why=why)
    return SearchHit(case=case, score=None, snippet=None)


def _listing_key(listing: CaseQuerySet, facets: bool) -> str | None:
    """The store-cache name of a filtered listing's total and facet counts: its SQL and
    parameters hashed, so two requests share the counts exactly when they would run the same
    queries; None for a listing known to be empty (it has no SQL)."""
    try:
        sql, params = listing.order_by().query.sql_with_params()
    except EmptyResultSet:
        return None
    digest = hashlib.sha256(repr((sql, params)).encode("utf-8")).hexdigest()
    return f"listing-counts:{digest}:{int(facets)}"


def _hits(
    plan: SearchPlan, parsed: ParsedQuery, shown: list[Candidate], rowids: dict[str, int]
) -> list[SearchHit]:
    """The hits of the candidates `shown`, in order: the snippets (one query), the cases and
    their terms (two), each with why it is listed (`results.why_listed`). `rowids`:
    `Ranking.rowids`. A strong hit mentioning a failure the query typed only negated is
    labelled possible, and `why` does not name that mention (`negated_marks`)."""
    snippets = get_backend().snippets(parsed, [c.case_id for c in shown], rowids)
    cases = Case.objects.filter(id__in=[c.case_id for c in shown]).with_summary().in_bulk()
    named = {t.id for t in parsed.terms}
    numbers = identifier_numbers(plan.query, parsed)
    typed = [[atom.words for atom in group] for group in numbers_after_words(parsed.literal_groups)]
    failures = failure_spellings(parsed, plan.codes)
    typed_failed = typed_failures(parsed, plan.codes)
    hits = []
    for candidate in shown:
        case = cases.get(candidate.case_id)
        if case is None:
            continue
        carried_terms = [
            t
            for t in [
                *case.topics,
                *case.terms_of(Facet.WORKLOAD),
                *case.symptom_tags,
                *case.components,
                case.root_cause_category,
            ]
            if t.id in named
        ]
        # A name once: a topic and a symptom tag may share one ("Silent data corruption"),
        # and the name twice said nothing more. `matched_vocabulary` keeps both, facet named.
        carried = list(dict.fromkeys(t.name for t in carried_terms))
        marked = snippets.get(candidate.case_id, Marked(None))
        snippet = parse_snippet(marked.passage)
        title = parse_snippet(marked.title)
        confidence = (
            candidate.confidence
            if candidate.case_id in plan.case_ids
            else survey_label(candidate, len(case.symptom_tags), len(parsed.groups))
        )
        # Tagged with the failure (or carrying the code), the case says it happened.
        tagged = any(t.facet == Facet.SYMPTOM for t in carried_terms) or any(
            t.name in plan.codes for t in case.terms_of(Facet.ERROR_CODE)
        )
        if (
            confidence == STRONG
            and candidate.case_id not in plan.case_ids
            and not tagged
            and negated_failure(snippet, failures, marked.body, typed_failed)
        ):
            confidence = POSSIBLE  # it names the query's failure only to say it did not happen
        if candidate.case_id in plan.case_ids:
            why = NAMED_BY_ID
        elif candidate.lexical_rank is None and candidate.semantic is not None and not candidate.like:
            why = MEANING_ONLY  # found by the semantic part alone: no word to show
        else:
            why = why_listed(
                unmarked(snippet, failures),
                carried,
                share=candidate.share,
                references=plan.references,
                like=candidate.like,
                numbers=numbers,
                title=title,
                typed=without_spellings(typed, negated_spellings(snippet, failures, marked.body)),
                body=marked.body,
            )
        hits.append(
            SearchHit(
                case=case,
                score=round(candidate.fused, 6),
                snippet=snippet,
                matched_terms=tuple(carried),
                matched_vocabulary=tuple((facet_label(t.facet).lower(), t.name) for t in carried_terms),
                confidence=confidence,
                why=why,
                like=candidate.like,
            )
        )
    return hits


def _match_counts(plan: SearchPlan, match_ids: list[str]) -> dict[str, list[FacetCount]]:
    """The facet counts of a ranking's matches (`match_facets.match_facet_counts`: from the
    process's case columns with the store cache on); none when `plan.facets` is False."""
    if not plan.facets:
        return {}
    if not match_ids:
        return facet_counts(plan.cases.none())
    from .match_facets import match_facet_counts  # numpy: out of commands that never search

    return match_facet_counts(plan.cases, match_ids)


def _no_facet_counts(cases: CaseQuerySet) -> dict[str, list[FacetCount]]:
    return {}
