"""A log of one line or a few, read as words too (`strong_as_words`).

An error line pasted alone (what an assistant sends as triage's or match_log's `text`) is
one signature to log matching: every piece of evidence in it sits at one place of one line,
and a strong log hit needs two (`log_confidence.names_the_failure`). Typed into search, the
same line finds the case that quotes it, strong: the NCCL line `NET/IB : Got completion
from peer ... with error 12, opcode 0, len 0, vendor err 129` was IL-0450 strong as a
search, as triage's `symptoms`, and possible as its `text` or through `POST /api/match`
(a new user's walkthrough, finding 30), so the on-call engineer was told the failure was
unknown. A log this short is also what search reads (each line a query of at most
`MAX_QUERY_CHARS`): a case the log shares a signature with and the search of one of its
lines calls strong is strong (`logmatch._labels`).
"""

from __future__ import annotations

from incidents.selectors.params import MAX_QUERY_CHARS

from .engine import search_cases

# The most distinct non-blank lines a log may have to be read as words, each line searched
# on its own (one word search each: a longer log is not what anybody types).
QUERY_LINES = 3
# The hits of each line's search read: a strong hit is among the first.
SEARCHED_HITS = 5


def strong_as_words(lines: list[str]) -> set[str]:
    """Ids of the cases the word search (`engine.search_cases`) calls strong for one of
    `lines` (a log's distinct non-blank lines), each searched on its own; empty, with no
    query run, when there are more than `QUERY_LINES` or one is longer than
    `MAX_QUERY_CHARS`."""
    queries = [line.strip() for line in lines]
    if not queries or len(queries) > QUERY_LINES or any(len(q) > MAX_QUERY_CHARS for q in queries):
        return set()
    strong: set[str] = set()
    for query in queries:
        hits = search_cases(query=query, limit=SEARCHED_HITS, facets=False).hits
        strong.update(hit.case.id for hit in hits if hit.confidence == "strong")
    return strong
