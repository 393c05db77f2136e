"""With the store cache on, SQLite ranks from each phrase's bm25 terms held in the process
(`backends.phrase_terms`) instead of FTS5 scoring every match again: every page is the
ranking statement's, row for row, scores bit for bit (filters, exclusions, boosts, offsets,
the split by rarity), and a second ranking of the same words reads no match again."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from incidents.models import Case, CaseTerm
from incidents.search import backends, case_columns
from incidents.search.backends import get_backend, phrase_terms
from incidents.search.backends.sqlite import SQLITE_TABLE, SQLITE_WEIGHTS
from incidents.search.planning import interpret
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

# `zzcommon` is in every synthetic case (with the real cases, in more than half the index
# rows: bm25's idf of a common word), `zzrare` in one in seven, `zzmid` in one in three.
QUERIES = [
    "zzcommon zzrare",
    "zzrare zzcommon allreduce zzmid",
    "zzcommon",
    "nccl timeout",
    '"watchdog timeout" checkpoint',
    "xid 79",
    "ecc error -checkpoint",
    "training job hangs in allreduce after we added nodes and the watchdog times out",
    "zqxjv",
]
PAGES = [(0, 1), (0, 7), (3, 5), (0, 100), (0, 1001)]
LARGE = 10**6  # a library size from which the ranking splits a query's words by rarity


def _documents(count: int = 120) -> list[dict]:
    documents = []
    for n in range(count):
        document = synthetic_case(n)
        extra = ["zzcommon"] * (1 + n % 3) + ["zzrare"] * (n % 7 == 0) + ["zzmid"] * (n % 3 == 0)
        document["summary"] += " " + " ".join(extra)
        documents.append(document)
    return documents


@pytest.fixture
def by_statement(monkeypatch):
    """Within, the SQLite ranking runs its statement (no held phrase terms)."""

    def off():
        monkeypatch.setattr(backends.SqliteBackend, "_from_held_terms", lambda *args, **kwargs: None)

    return off


def _weights(ids: list[str]) -> tuple[dict[int, float], dict[int, float]]:
    """Weights for four terms the cases carry and one root cause (the term boost)."""
    linked = sorted(set(CaseTerm.objects.filter(case_id__in=ids).values_list("term_id", flat=True)))
    cause = Case.objects.filter(id=ids[0]).values_list("root_cause_category_id", flat=True)[0]
    return dict(zip(linked[:4], [0.1, 0.7, 0.3331, 0.6667], strict=False)), {cause: 0.4129}


def _pages(ids: list[str]) -> list:
    backend = get_backend()
    filtered = (
        Case.objects.published().exclude(id__in=ids[2:9]).order_by().values("id").query.sql_with_params()
    )
    boosted = _weights(ids)
    pages = []
    for query in QUERIES:
        parsed = interpret(query)
        loose = parsed.__class__(
            groups=[[a for g in parsed.groups for a in g]],
            literal_groups=parsed.literal_groups,
            excluded=parsed.excluded,
            terms=parsed.terms,
        )
        for candidates in (None, filtered):
            for term_weights, root_cause_weights in (({}, {}), boosted):
                for library_size in (0, LARGE):
                    for offset, limit in PAGES:
                        pages.append(
                            backend.rank(
                                loose,
                                candidates,
                                term_weights=term_weights,
                                root_cause_weights=root_cause_weights,
                                sort="relevance",
                                offset=offset,
                                limit=limit,
                                coordinate=parsed.groups,
                                literal=parsed.literal_groups if len(parsed.groups) > 1 else [],
                                library_size=library_size,
                            )
                        )
    return pages


def test_every_page_is_the_statements_bit_for_bit(
    store_cache_on, import_synthetic, by_statement, monkeypatch
):
    ids = import_synthetic(*_documents())
    Case.objects.filter(id__in=ids[:2]).update(status=Case.Status.RETRACTED)
    served: list[bool] = []
    original = phrase_terms.ranked_from_terms

    def spy(*args, **kwargs):
        page = original(*args, **kwargs)
        served.append(page is not None)
        return page

    monkeypatch.setattr(phrase_terms, "ranked_from_terms", spy)
    held = _pages(ids)
    # Every ranking came from the held terms (none fell back to the statement): the split's
    # pages too, and the single pass after a split page that was not exact.
    assert (
        served == [True] * len(served) and len(served) >= len(held)
        if connection.vendor == "sqlite"
        else not served
    )
    by_statement()
    # RankedRow compares its floats with ==: the same doubles, not close ones.
    assert held == _pages(ids)
    assert sum(len(page) for page in held) > 1000
    assert any(len(page) > 100 for page in held)


def test_a_rows_bm25_is_its_phrases_terms_added_in_order(import_synthetic):
    """What the held ranking rests on (SQLite): `-bm25()` of an expression, for each row it
    matches, is `0.0` plus each phrase's term as a query of that phrase alone gives it, in the
    expression's order (a phrase the row lacks adds nothing)."""
    import_synthetic(*_documents(40))
    if connection.vendor != "sqlite":
        assert not hasattr(get_backend(), "_from_held_terms")
        return
    weights = ", ".join(str(w) for w in SQLITE_WEIGHTS)
    phrases = ['"zzrare"', '"watchdog timeout"', '"zzcommon"', '"allreduce"']

    def scores(expression: str) -> dict[int, float]:
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT rowid, -bm25({SQLITE_TABLE}, {weights}) FROM {SQLITE_TABLE}"
                f" WHERE {SQLITE_TABLE} MATCH %s",
                [expression],
            )
            return dict(cursor.fetchall())

    alone = [scores(phrase) for phrase in phrases]
    whole = scores("(" + " OR ".join(phrases) + ")")
    assert len(whole) > 40
    for rowid, score in whole.items():
        total = 0.0
        for terms in alone:
            total += terms.get(rowid, 0.0)
        assert score == total


def test_a_second_ranking_reads_no_match_again(store_cache_on, import_synthetic, django_assert_num_queries):
    import_synthetic(*_documents(30))
    if connection.vendor != "sqlite":
        return
    backend = get_backend()
    parsed = interpret("zzcommon zzmid watchdog")
    options: dict = dict(term_weights={}, root_cause_weights={}, sort="relevance", offset=0, limit=10)
    assert case_columns.held() is not None
    with CaptureQueriesContext(connection) as first:
        page = backend.rank(parsed, None, coordinate=parsed.groups, **options)
    # The three phrases' terms in one statement; no statement of the whole expression.
    assert [q["sql"].count("bm25(") for q in first.captured_queries] == [3]
    with django_assert_num_queries(0):
        assert backend.rank(parsed, None, coordinate=parsed.groups, **options) == page
    held = phrase_terms.held()
    assert held is not None and held._bytes == sum(r.nbytes + t.nbytes for r, t in held._held.values())
    assert set(held._held) == {'"zzcommon"', '"zzmid"', '"watchdog"'}


def test_held_terms_follow_writes_and_their_budget(
    store_cache_on, import_synthetic, by_statement, monkeypatch
):
    """An import makes a new store generation (every row's bm25 changes with the index): the
    terms are read again. Past `HELD_BYTES` the least recently used phrases are dropped and
    read again when asked: the pages do not change."""
    ids = import_synthetic(*_documents(60))
    if connection.vendor != "sqlite":
        return
    before = phrase_terms.held()
    _pages(ids)
    ids += import_synthetic(*[synthetic_case(n) for n in range(60, 90)])
    after = phrase_terms.held()
    assert after is not before and after is not None
    monkeypatch.setattr(phrase_terms, "HELD_BYTES", 4000)
    held = _pages(ids)
    assert after._bytes <= 4000 or len(after._held) == 1
    by_statement()
    assert held == _pages(ids)
