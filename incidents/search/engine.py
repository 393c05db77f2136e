"""Case search: query text plus facet filters, ranked hits with snippets, facet counts.

`search_cases` runs three stages, each a function from one typed value to the next:

1. `planning.plan`: the request (`SearchRequest`) becomes a `SearchPlan`: the query parsed
   into words, phrases and exclusions, corrected and widened with vocabulary synonyms, the
   filters as a queryset, and which kind of answer it gets (browse, nothing to search,
   exclusions only, ranked);
2. `ranking.rank`: lexical retrieval by the database's full-text engine fused with
   semantic retrieval, calibrated and labelled strong / possible / weak (`Ranking`: the
   matches and partial matches as ranked ids with scores, or the cases to list by date);
3. `hydration.hydrate`: the page of cases loaded with a fixed number of queries, their
   snippets (plain-text segments each front door renders) and the facet counts
   (`SearchResults`).

Only strong and possible hits are matches: the total and the facet counts count them;
weak hits follow them on the list as partial matches.
"""

from __future__ import annotations

import dataclasses

from incidents.selectors import CaseFilters

from .gate import one_at_a_place
from .hydration import hydrate
from .planning import SearchRequest, Sort, plan
from .query import without_phrase_quotes
from .ranking import rank
from .results import SearchResults
from .version_notes import version_note
from .withdrawn import retracted_matches


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
    probability as score, a confidence label strong / possible, a `Snippet` whose matched
    segments are the query's matches, and the vocabulary terms the query named that the
    case carries), the total of matches, and after the last page of matches up to
    `PARTIAL_SHOWN` partial matches (`partial_hits`, label weak) with their number
    (`partial_total`), facet counts over the matches (topic, symptom, root_cause,
    component, organization, year, accelerator), a "did you mean" `suggestion` and notes
    (query cut short, only stop words, nothing matched well, more cases containing the words
    than the lexical ranking reads: `ranking.LEXICAL_DEPTH`). Any string is accepted:
    nothing raises on odd input. A blank query is the browse view: `relevance` means newest
    first, scores and labels are None. Tokens naming an upstream record
    (`NVIDIA/nccl#1116`, `nccl#1116`, `arXiv:...`, a URL) are reference lookups: only the
    cases citing one of them (in `references` or `sources`) are searched for the rest of the
    query (a citing case with none of its words is not listed), and a note says so; with
    no words to rank them (or words it only excludes) each is a strong match of score 1
    (`hydration.REFERENCE_SCORE`: an exact reference is the strongest evidence there is),
    listed by date like the browse view. A token that is a case id (`IL-0428`, `il-0428`,
    `IL0428`; a number alone is a word) names that published case: a strong match of score 1
    (`ranking.NAMED_SCORE`), first in a ranking by relevance whatever the rest of the query
    (whose words rank the other cases), alone when there is no word to rank by; filters and
    reference tokens still apply, and a note says so, or that a case named is retracted, and
    why (`selectors.lookup.retracted_note`), or names the closest ids of an id no published
    or retracted case has. An id merged into another case names the case it was merged into,
    listed in its place, a note saying so (`selectors.lookup.merged_note`). When nothing
    matches, the retracted cases that would have (the same filters apply) are named with
    their reasons in a note (`withdrawn.retracted_matches`, `retracted_matches`): the
    knowledge exists and was withdrawn.

    A word of the query that no published case contains (and no vocabulary word corrects)
    and a generic exception name (`RuntimeError`) beside other words are searched without,
    a note saying so (`planning.without_words`): neither tells one case from another.

    Queries (fixed whatever the number of cases): with a query 7 (one more when a word of
    four letters or more is no vocabulary word: whether any case has it) - vocabulary with
    case counts, the lexical ranking, the stored embeddings, snippets, the page's cases and
    their terms, the facet counts (one grouped query, none when nothing matches; one more
    query to order the matches by date when `sort` is newest or oldest); one more when the
    query names a case id (whether it is published and allowed, or retracted; one more again
    for an id no published, retracted or merged case has: the closest ids), and an id alone lists
    like browsing (1 + 4); a query that only excludes words: 5; no query: 4 (the total and
    the facet counts from the store cache when it is on, browsing every case or a few facet
    values: `hydration.hydrate`). With the store cache on, a ranked query's facet counts
    come from the case columns the process holds (`case_columns`, `match_facets`: no query),
    and so do the term boost, status and date of each match the lexical ranking keeps; the
    first search of a store generation reads the columns (two queries).
    On SQLite, from `backends.SPLIT_FROM` published cases, an unfiltered query whose words are
    partly in most cases is ranked from its rarer words' matches: one query more the first time a
    store generation counts a word's rows, and one more when that page is not exact (then
    every match is ranked, as below that size). On SQLite with the store cache on, the
    lexical ranking is computed from the bm25 terms of the query's phrases the process holds
    for the store generation (`backends.phrase_terms`, the same page and scores): no query
    when it holds them all, one to read those it lacks, one more when filtered (the allowed
    cases' ids).
    A query quoting printed output (it shows an error code by the code's patterns) costs one
    query more when a case would be strong that matches at most half of its words: whether
    it holds one of the line's failure tokens (`signatures.holding_a_signature`).
    A query whose quoted phrases match no case as written (a pasted error line) is searched
    again with their quotes off (`query.without_phrase_quotes`; excluded phrases keep
    theirs), a note first saying so (`PHRASE_LOOSENED`): its plan and ranking cost their
    queries once more.
    A ranked query that matches nothing costs the retracted cases' reasons (one query, none
    from the store cache) and, when a case is retracted, their lexical ranking (one more); a
    word no published case contains, searched without, costs the same reasons and, when a case
    is retracted, whether retracted cases contain it (one more: then a note names them,
    `withdrawn.retracted_holding`, where "No case contains" would be untrue).
    `facets=False` (callers that show no counts) leaves `facets` empty and saves the facet
    query. Each waits for one of the process's `settings.SEARCH_CONCURRENCY` places
    (`gate.py`), listings too: sixteen filtered listings at once took a worker at 100,000
    cases 23 to 30 MB above its resting set, against 8 to 10 MB within two places.
    A query that is a version (`535.104.05`) or a component and its version (`nccl 2.18.1`)
    gets a last note pointing to "Am I affected?" (`version_notes.version_note`: one query
    more, the component terms, for a name beside a dotted version).
    """
    request = SearchRequest(
        query=query, filters=filters, sort=sort, offset=offset, limit=limit, facets=facets
    )
    with one_at_a_place():
        planned = plan(request)
        ranking = rank(planned)
        loose = without_phrase_quotes(query) if planned.kind == "ranked" and not ranking.matches else None
        if loose is not None:
            # No case holds a quoted phrase as written: its words are searched instead, and a
            # note says so (the phrase's partial matches were cases merely close in meaning).
            planned = plan(dataclasses.replace(request, query=loose))
            planned = dataclasses.replace(planned, notes=(PHRASE_LOOSENED, *planned.notes))
            ranking = rank(planned)
        if planned.kind == "ranked" and not ranking.matches:
            ranking = dataclasses.replace(ranking, retracted=retracted_matches(planned))
        results = hydrate(planned, ranking)
    note = version_note(query) if query else None
    if note is None:
        return results
    # Last: what search found (or not) is said first, then where a version is checked.
    return dataclasses.replace(
        results, notes=[*results.notes, note], reading_notes=(*results.reading_notes, note)
    )


PHRASE_LOOSENED = "No case holds the quoted words in that order: searched for them anywhere in a case."
