"""With the store cache on, the lexical ranking's term boost, status and date and the facet
counts of a search's matches come from the case columns the process holds
(`case_columns`), not from case rows and term links read per match: the answers are the
database's, value for value and in the same order, on both backends."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import Case, CaseTerm
from incidents.search import case_columns, search_cases
from incidents.search.backends import RankedRow, get_backend
from incidents.search.backends import boosted_page as boosted_module
from incidents.search.backends.boosted_page import boosted_page, boosts
from incidents.search.facets import facet_counts
from incidents.search.match_facets import match_facet_counts
from incidents.search.planning import interpret
from incidents.selectors import CaseFilters
from incidents.services import change_status, save_case_document
from incidents.workflow import REVIEWER
from tests.conftest import load_fixture
from tests.editorial.conftest import make_user
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

QUERIES = [
    "nccl timeout",
    '"watchdog timeout"',
    "xid 79",
    "training job hangs in allreduce after we added nodes and the watchdog times out",
    "ecc error -checkpoint",
    "silent data corruption",
]


@pytest.fixture
def from_the_database(monkeypatch):
    """Within, search reads the database as with the store cache off (`held` is None)."""

    def off():
        monkeypatch.setattr(case_columns, "held", lambda: None)

    return off


def answer(results):
    return (
        [(h.case.id, h.score, h.confidence) for h in results.hits],
        [(h.case.id, h.score) for h in results.partial_hits],
        results.total,
        {name: [(f.value, f.label, f.count) for f in counts] for name, counts in results.facets.items()},
    )


def searches() -> list:
    return [
        answer(search_cases(query=query, filters=filters, sort=sort, offset=offset, limit=limit))
        for query in QUERIES
        for filters in (None, CaseFilters(include={"topic": ("training-hang",)}))
        for sort, offset, limit in (("relevance", 0, 20), ("relevance", 3, 4), ("newest", 0, 10))
    ]


def test_searches_answer_as_from_the_database(store_cache_on, import_synthetic, from_the_database):
    import_synthetic(*[synthetic_case(n) for n in range(30)])
    searches()  # the columns read once (and the other values a search keeps)
    with CaptureQueriesContext(connection) as read:
        held = searches()
    # Neither the ranking (the term boost's sum over a case's links) nor the facet counts (their
    # grouped count of the matches' links) ran; the page's cases still read their own terms.
    statements = [q["sql"] for q in read.captured_queries]
    assert statements and not any(
        "SUM(CASE ct.term_id" in sql or "GROUP BY ct.term_id" in sql for sql in statements
    )
    from_the_database()
    assert held == searches()
    assert any(counts for _, _, _, facets in held for counts in facets.values())


def test_the_facet_counts_of_matches_are_the_databases(
    store_cache_on, import_synthetic, django_assert_num_queries
):
    ids = import_synthetic(*[synthetic_case(n) for n in range(12)])
    Case.objects.filter(id=ids[0]).update(accelerator_count=None)
    columns = case_columns.held()
    assert columns is not None
    published = Case.objects.published()
    for matches in (
        ids,
        ids[:3],
        ["IL-0428", "IL-0429", *ids[5:]],
        list(published.values_list("id", flat=True)),
    ):
        expected = facet_counts(published.filter(id__in=matches))
        with django_assert_num_queries(0):  # the columns are held: no query
            assert match_facet_counts(published, matches) == expected
        assert expected["year"] and expected["scale"] and expected["topic"]


def test_a_match_the_columns_do_not_hold_is_counted_by_the_database(
    store_cache_on, import_synthetic, django_assert_num_queries, monkeypatch
):
    ids = import_synthetic(synthetic_case(0), synthetic_case(1))
    held = case_columns.held()
    assert held is not None
    without_last = case_columns.read()
    at = int(np.flatnonzero(without_last.sorted_ids == ids[1])[0])
    stale = copy.copy(without_last)
    object.__setattr__(stale, "sorted_ids", np.delete(without_last.sorted_ids, at))
    object.__setattr__(stale, "sorted_numbers", np.delete(without_last.sorted_numbers, at))
    monkeypatch.setattr(case_columns, "held", lambda: stale)
    assert stale.numbers([ids[1]]) is None and stale.numbers(["IL-9999999"]) is None
    published = Case.objects.published()
    expected = facet_counts(published.filter(id__in=ids))
    with django_assert_num_queries(1):
        assert match_facet_counts(published, ids) == expected
    assert (
        boosted_page(
            [(ids[1], 1.0, 1.0, 1.0, None)],
            stale,
            term_weights={},
            root_cause_weights={},
            published_only=True,
            sort="relevance",
            offset=0,
            limit=5,
        )
        is None
    )


def _named_terms(ids: list[str]) -> tuple[dict[int, float], dict[int, float]]:
    """Weights for five terms the cases carry (a case carries up to five of them: the boost
    is a sum of several floats, whose order counts) and two root causes."""
    linked = sorted(
        set(
            CaseTerm.objects.filter(
                case_id__in=ids, term__facet__in=["topic", "symptom", "component"]
            ).values_list("term_id", flat=True)
        )
    )
    weights = [0.1, 0.7, 0.2, 0.3331, 0.6667]
    causes = sorted(set(Case.objects.filter(id__in=ids).values_list("root_cause_category_id", flat=True)))
    return dict(zip(linked[:5], weights, strict=False)), {causes[0]: 0.4129, causes[-1]: 0.0917}


@pytest.mark.parametrize("query", ["watchdog allreduce checkpoint", "fabric switch latency", "shard -router"])
def test_a_page_with_boosts_filters_and_offsets_is_the_statements(
    store_cache_on, import_synthetic, from_the_database, query
):
    ids = import_synthetic(*[synthetic_case(n) for n in range(40)])
    Case.objects.filter(id__in=ids[:2]).update(status=Case.Status.RETRACTED)
    term_weights, root_cause_weights = _named_terms(ids)
    filtered = Case.objects.published().exclude(id__in=ids[2:5]).order_by().values("id")
    parsed, backend = interpret(query), get_backend()

    def pages():
        return [
            backend.rank(
                parsed,
                candidates,
                term_weights=term_weights,
                root_cause_weights=root_cause_weights,
                sort="relevance",
                offset=offset,
                limit=limit,
                coordinate=parsed.groups,
            )
            for candidates in (None, filtered.query.sql_with_params())
            for offset, limit in ((0, 1), (0, 7), (3, 5), (0, 100))
        ]

    assert case_columns.held() is not None
    with CaptureQueriesContext(connection) as read:
        held = pages()
    # One statement a page; SQLite ranks from the phrases' bm25 terms held in the process
    # (`phrase_terms`): one statement reads them for the first page, and each filtered page
    # reads its allowed cases' ids.
    sqlite = connection.vendor == "sqlite"
    assert len(read.captured_queries) == (1 + len(held) // 2 if sqlite else len(held))
    assert not any(
        "incidents_caseterm" in q["sql"] or "incidents_case c" in q["sql"] for q in read.captured_queries
    )
    from_the_database()
    assert held == pages()
    assert any(len(page) > 5 for page in held)


def _sqlite_sum(values: list[float], compensated: bool) -> float:
    """SQLite's `sum()` of REAL values, step for step: a running sum before 3.43, the
    Kahan-Babuska-Neumaier sum after (`sumStep`, `sumFinalize` of func.c)."""
    total, error = 0.0, 0.0
    for r in values:
        if not compensated:
            total += r
            continue
        t = total + r
        error += (total - t) + r if abs(total) > abs(r) else (r - t) + total
        total = t
    return total + error


@pytest.mark.parametrize("compensated", [False, True])
def test_the_boost_is_summed_as_the_database_sums(import_synthetic, monkeypatch, compensated):
    ids = import_synthetic(*[synthetic_case(n) for n in range(20)])
    columns = case_columns.read()
    # Weights whose sum depends on its order and method: 1e16 + 1 - 1e16 is 0 summed plainly.
    term_ids = sorted({t for t in columns.link_term.tolist()})[:6]
    weights = dict(zip(term_ids, [1e16, 1.0, -1e16, 0.1, 0.2, 0.3], strict=False))
    monkeypatch.setattr(boosted_module, "compensated_sum", lambda: compensated)
    numbers = columns.numbers(ids)
    assert numbers is not None
    got = boosts(columns, numbers, weights, {})
    for number, value in zip(numbers.tolist(), got.tolist(), strict=True):
        carried = [weights[t] for t in sorted(weights) if columns.carrying(t)[number]]
        assert value == _sqlite_sum(carried, compensated)
    assert not math.isclose(_sqlite_sum([1e16, 1.0, -1e16], True), _sqlite_sum([1e16, 1.0, -1e16], False))


def test_this_databases_sum_is_the_one_emulated(db):
    """The emulation follows what the database does with the weights: SQLite sums floats
    (plainly before 3.43, compensated after), PostgreSQL reads psycopg's literals as exact
    decimals."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT SUM(x) FROM (SELECT %s AS x UNION ALL SELECT %s UNION ALL SELECT %s) AS v",
            [0.1, 0.2, 0.3],
        )
        summed = float(cursor.fetchone()[0])
    if connection.vendor == "sqlite":
        assert summed == _sqlite_sum([0.1, 0.2, 0.3], boosted_module.compensated_sum())
    else:
        assert summed == 0.6 and boosted_module._postgres_weights_are_decimal()


def test_columns_read_inside_a_write_follow_it(store_cache_on, import_synthetic, from_the_database):
    """An edit, a retraction and an import inside the open transaction: the next search
    reads the columns again (a new store generation), so its answers are the database's."""
    import_synthetic(*[synthetic_case(n) for n in range(12)])
    before = searches()
    edited = copy.deepcopy(load_fixture("IL-0428"))
    edited["published"] = "2001-01-01"
    edited["topics"] = ["training-hang"]
    edited["environment"]["accelerator_count"] = 20000
    assert save_case_document(edited, reason="test edit").changed
    change_status("IL-0429", "retracted", user=make_user("rita", REVIEWER), reason="Source withdrawn")
    import_synthetic(*[synthetic_case(n) for n in range(12, 20)])
    after = searches()
    columns = case_columns.held()
    assert columns is not None
    number = columns.numbers(["IL-0428"])
    assert (
        number is not None and columns.day[number[0]] == 20010101 and columns.accelerators[number[0]] == 20000
    )
    from_the_database()
    assert after == searches()
    assert after != before


def test_the_columns_find_cases_by_their_full_text_rows(store_cache_on, import_synthetic):
    """SQLite's ranking hands over the kept matches' rowids and the columns name their cases
    (`numbers_of_rows`, `ids_of`), and snippets are read by the rowids the columns hold
    (`rowids_of`); PostgreSQL's index has no rowid, so none is held."""
    ids = import_synthetic(*[synthetic_case(n) for n in range(6)])
    columns = case_columns.held()
    assert columns is not None
    if connection.vendor != "sqlite":
        assert columns.rowids_of(ids) is None
        assert columns.numbers_of_rows(np.array([1], dtype=np.int64)) is None
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, c0 FROM incidents_case_fts_content WHERE c0 IN (%s, %s, %s)", ids[:3])
        rows = cursor.fetchall()
    rowids, case_ids = [r[0] for r in rows], [r[1] for r in rows]
    assert sorted(case_ids) == sorted(ids[:3])
    assert columns.rowids_of(case_ids) == rowids
    numbers = columns.numbers_of_rows(np.array(rowids, dtype=np.int64))
    assert numbers is not None and columns.ids_of(numbers) == case_ids
    unknown = np.array([int(columns.index_rowids.max()) + 1], dtype=np.int64)
    assert columns.numbers_of_rows(unknown) is None
    page: dict = dict(
        term_weights={}, root_cause_weights={}, published_only=True, sort="relevance", offset=0, limit=5
    )
    assert boosted_page([(int(unknown[0]), 1.0, 1.0, 1.0)], columns, by_rowid=True, **page) is None
    assert boosted_page(
        [(rowids[0], 2.0, 0.5, 1.0), (rowids[1], 3.0, 1.0, 0.5)], columns, by_rowid=True, **page
    ) == [
        RankedRow(case_ids[1], 3.0, 1.0, 0.5, rowids[1]),
        RankedRow(case_ids[0], 2.0, 0.5, 1.0, rowids[0]),
    ]


def test_snippets_of_cases_the_ranking_did_not_read_are_read_by_rowid(
    store_cache_on, import_synthetic, from_the_database
):
    ids = import_synthetic(*[synthetic_case(n) for n in range(8)])
    parsed, backend = interpret("watchdog allreduce checkpoint"), get_backend()
    with CaptureQueriesContext(connection) as read:
        held = backend.snippets(parsed, ids, {})
    assert held and set(held) <= set(ids)
    if connection.vendor == "sqlite":
        assert "rowid IN" in read.captured_queries[-1]["sql"]
    from_the_database()
    assert backend.snippets(parsed, ids, {}) == held
