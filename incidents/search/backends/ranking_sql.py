"""SQL both backends' rankings use alike: the boost of the terms a query names, the exact
bound that keeps only the matches that can reach the page, the page's order."""

from __future__ import annotations

from .base import PUBLISHED, TERM_BOOST


def boost_range(term_weights: dict[int, float], root_cause_weights: dict[int, float]) -> tuple[float, float]:
    """The least and the greatest factor `1 + TERM_BOOST * (boost_sql)` can take: each
    named term counts at most once per case (one link per case and term) and a case has one
    root cause."""
    low = sum(min(w, 0.0) for w in term_weights.values()) + min([0.0, *root_cause_weights.values()])
    high = sum(max(w, 0.0) for w in term_weights.values()) + max([0.0, *root_cause_weights.values()])
    return 1 + TERM_BOOST * low, 1 + TERM_BOOST * high


# The cases not published: two ranges of the (status, id) index (`<>` read every case row
# on PostgreSQL); its parameters are PUBLISHED twice.
NOT_PUBLISHED = "status < %s OR status > %s"

# Relative slack of the pruning bound (`pruned`): the score and its bound are products of
# the same numbers in another order, which may differ in the last bits.
BOUND_SLACK = 1e-9


def pruned(
    base: str,
    rows: str,
    term_weights: dict[int, float],
    root_cause_weights: dict[int, float],
    depth: int,
    *,
    sort: str,
    unpublished_in_rows: bool,
) -> tuple[str, list]:
    """SQL of a condition keeping only the rows of `rows` that can be among the `depth` best
    scores, and its parameters; "1 = 1" when nothing can be pruned (a `sort` other than
    relevance, a negative weight, a `depth` below 1: no row is asked for).

    A row's score is `base * boost factor`, every `base` >= 0 and the factor in
    `boost_range` [low, high]. Let T be the `depth + U`-th greatest `base` over `rows`,
    U the cases not published when `unpublished_in_rows` (every status is indexed, and the
    caller's filter drops them after this), else 0. At least `depth` allowed rows have
    `base >= T`, so a score >= T * low; a row with `base * high < T * low` scores below
    each of them and is not on the page. Exact: the same page as without the condition,
    whose cost is the joins and the term boost of every match (at 100,000 cases most of
    a query whose words are in most cases); only the bound is read before them.
    """
    low, high = boost_range(term_weights, root_cause_weights)
    if sort != "relevance" or low <= 0 or depth < 1:
        return "1 = 1", []
    offset = "%s"
    params: list[object] = [high, low * (1 - BOUND_SLACK), depth - 1]
    if unpublished_in_rows:
        offset += f" + (SELECT COUNT(*) FROM incidents_case WHERE {NOT_PUBLISHED})"
        params += [PUBLISHED, PUBLISHED]
    kth = f"(SELECT {base} AS bound FROM {rows} ORDER BY bound DESC LIMIT 1 OFFSET {offset})"
    return f"{base} * %s >= %s * COALESCE({kth}, 0)", params


def boost_sql(term_weights: dict[int, float], root_cause_weights: dict[int, float]) -> tuple[str, list]:
    """SQL summing the weights of the query-named terms case `c` carries (0 when none)."""
    parts: list[str] = []
    params: list[object] = []
    if term_weights:
        cases = " ".join("WHEN %s THEN %s" for _ in term_weights)
        marks = ", ".join(["%s"] * len(term_weights))
        parts.append(
            f"(SELECT COALESCE(SUM(CASE ct.term_id {cases} ELSE 0 END), 0)"
            " FROM incidents_caseterm ct WHERE ct.case_id = c.id"
            f" AND ct.term_id IN ({marks}))"
        )
        params.extend(v for pair in term_weights.items() for v in pair)
        params.extend(term_weights)
    if root_cause_weights:
        cases = " ".join("WHEN %s THEN %s" for _ in root_cause_weights)
        parts.append(f"(CASE c.root_cause_category_id {cases} ELSE 0 END)")
        params.extend(v for pair in root_cause_weights.items() for v in pair)
    return (" + ".join(parts) or "0"), params


ORDER = {
    "relevance": "score DESC, c.published DESC, c.id DESC",
    "newest": "c.published DESC, c.id DESC",
    "oldest": "c.published ASC, c.id ASC",
}
