"""The lexical ranking joins and boosts only the matches that can reach the page
(`backends.ranking_sql.pruned`): the page is the same as without the bound, on both backends, with
term boosts, filters, offsets and retracted cases still in the full-text index."""

from __future__ import annotations

import pytest
from django.db import connection

from incidents.models import Case, CaseTerm
from incidents.search.backends import get_backend, ranking_sql
from incidents.search.planning import interpret
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def _kept(bases: list[float], depth: int, term_weights: dict[int, float]) -> list[float]:
    condition, params = ranking_sql.pruned(
        "f.base", "f", term_weights, {}, depth, sort="relevance", unpublished_in_rows=True
    )
    values = ", ".join(f"({b})" for b in bases)
    with connection.cursor() as cursor:
        cursor.execute(f"WITH f(base) AS (VALUES {values}) SELECT f.base FROM f WHERE {condition}", params)
        return sorted((float(row[0]) for row in cursor.fetchall()), reverse=True)


def test_the_bound_drops_what_cannot_reach_the_page(import_synthetic):
    import_synthetic(synthetic_case(0))
    # Boost factor between 1 and 1.5: the second best base is 9, and 5 * 1.5 < 9.
    assert _kept([10.0, 9.0, 5.0, 1.0], 2, {7: 1.0}) == [10.0, 9.0]
    # No boost: exactly the two best, and ties with the second are kept.
    assert _kept([10.0, 9.0, 9.0, 5.0], 2, {}) == [10.0, 9.0, 9.0]
    # Fewer rows than the page: nothing is dropped.
    assert _kept([3.0, 1.0], 5, {7: 1.0}) == [3.0, 1.0]


def test_cases_not_published_widen_the_bound(import_synthetic):
    """A retracted case keeps its index row, and the caller's filter drops it after the
    bound: each case not published moves the bound one row further."""
    ids = import_synthetic(synthetic_case(0), synthetic_case(1))
    Case.objects.filter(id=ids[0]).update(status=Case.Status.RETRACTED)
    assert _kept([10.0, 9.0, 5.0, 1.0], 2, {7: 1.0}) == [10.0, 9.0, 5.0]


def test_a_page_of_no_rows_has_no_bound(import_synthetic):
    """`limit=0` asks for no row: no `depth`-th score to read (PostgreSQL refuses OFFSET -1)."""
    ids = import_synthetic(*[synthetic_case(n) for n in range(12)])
    assert _kept([10.0, 9.0], 0, {7: 1.0}) == [10.0, 9.0]
    rank = _ranker(get_backend(), interpret(QUERIES[0]), ids)
    assert rank(None, 0, 0) == []
    assert rank(None, 2, 0) == []


def test_a_negative_weight_turns_the_bound_off(import_synthetic):
    import_synthetic(synthetic_case(0))
    assert _kept([10.0, 9.0, 5.0, 1.0], 1, {7: -2.5}) == [10.0, 9.0, 5.0, 1.0]


QUERIES = ["watchdog allreduce checkpoint", "fabric switch latency", "shard -router"]


_BOUND = ranking_sql.pruned


def _ranker(backend, parsed, ids, weight=0.05):
    """`rank(candidates, offset, limit, bound=...)` with small boosts (terms a few cases
    carry, as if the query named them), so that the bound is tight and drops rows."""
    linked = CaseTerm.objects.filter(case_id__in=ids[8:12]).values_list("term_id", flat=True)
    term_weights = {term_id: weight for term_id in sorted(set(linked))[:2] if weight}
    root = Case.objects.get(id=ids[9]).root_cause_category_id

    def rank(candidates, offset, limit, bound=_BOUND):
        original = ranking_sql.pruned
        ranking_sql.pruned = bound
        try:
            return backend.rank(
                parsed,
                candidates,
                term_weights=term_weights,
                root_cause_weights={root: weight} if weight else {},
                sort="relevance",
                offset=offset,
                limit=limit,
                coordinate=parsed.groups,
            )
        finally:
            ranking_sql.pruned = original

    return rank


def _unbounded(*args, **kwargs):
    return "1 = 1", []


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize(("offset", "limit"), [(0, 1), (0, 4), (3, 1), (3, 5), (0, 50)])
def test_the_page_is_the_one_without_the_bound(import_synthetic, query, offset, limit):
    ids = import_synthetic(*[synthetic_case(n) for n in range(40)])
    backend, parsed = get_backend(), interpret(query)
    rank = _ranker(backend, parsed, ids)
    best = [row.case_id for row in rank(None, 0, 100, bound=_unbounded)]
    # The best two matches are retracted (their index rows stay), the next three filtered out.
    Case.objects.filter(id__in=best[:2]).update(status=Case.Status.RETRACTED)
    filtered = Case.objects.published().exclude(id__in=best[2:5])
    allowed = filtered.order_by().values("id").query.sql_with_params()
    for candidates, left_out in ((None, best[:2]), (allowed, best[:5])):
        page = rank(candidates, offset, limit)
        assert page == rank(candidates, offset, limit, bound=_unbounded)
        assert page and not {row.case_id for row in page} & set(left_out)


def test_the_data_above_catch_a_wrong_bound(import_synthetic):
    """Without boosts the bound keeps the best `depth` rows and their ties: read at the
    page's limit alone (not offset + limit), it would lose the page's rows."""
    ids = import_synthetic(*[synthetic_case(n) for n in range(40)])
    backend, parsed = get_backend(), interpret(QUERIES[0])
    rank = _ranker(backend, parsed, ids, weight=0.0)
    best = [row.case_id for row in rank(None, 0, 100, bound=_unbounded)]
    assert len(best) > 20

    def at_the_limit(base, rows, term_weights, root_cause_weights, depth, **options):
        return _BOUND(base, rows, term_weights, root_cause_weights, 1, **options)

    assert rank(None, 3, 1, bound=_unbounded) != rank(None, 3, 1, bound=at_the_limit)
