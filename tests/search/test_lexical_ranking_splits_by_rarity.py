"""In a large library SQLite ranks a query whose words are partly in most cases from the
matches of its rarer words (`backends.SqliteBackend._split`): the page is the one a single
pass over every match gives, scores included, or that pass is run."""

from __future__ import annotations

import pytest
from django.db import connection

from incidents import store_cache
from incidents.models import Case
from incidents.search import backends, case_columns
from incidents.search.backends import get_backend
from incidents.search.planning import interpret
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db

# `zzcommon` is in every synthetic case: with the 173 real cases beside them, in more than
# half the index rows (bm25 gives it the idf of a word in most cases); `zzrare` in one in
# seven, `zzmid` in one in three.
QUERIES = ["zzcommon zzrare", "zzcommon zzmid watchdog", "zzrare zzcommon allreduce zzmid", "zzcommon"]
PAGES = [(0, 1), (0, 5), (3, 10), (0, 30), (0, 1000)]
LARGE = 10**6


def _documents() -> list[dict]:
    documents = []
    for n in range(200):
        document = synthetic_case(n)
        extra = ["zzcommon"] * (1 + n % 3) + ["zzrare"] * (n % 7 == 0) + ["zzmid"] * (n % 3 == 0)
        document["summary"] += " " + " ".join(extra)
        documents.append(document)
    return documents


def _rank(query: str, offset: int, limit: int, library_size: int, parsed=None, candidates=None):
    parsed = parsed or interpret(query)
    loose = parsed.__class__(
        groups=[[a for g in parsed.groups for a in g]],
        literal_groups=parsed.literal_groups,
        excluded=parsed.excluded,
        terms=parsed.terms,
    )
    rows = get_backend().rank(
        loose,
        candidates,
        term_weights={},
        root_cause_weights={},
        sort="relevance",
        offset=offset,
        limit=limit,
        coordinate=parsed.groups,
        library_size=library_size,
    )
    return [(r.case_id, round(r.score, 12), r.share, r.literal_share, r.rowid) for r in rows]


def test_the_page_is_the_one_of_a_single_pass(import_synthetic, store_cache_on):
    import_synthetic(*_documents())
    for query in QUERIES:
        for offset, limit in PAGES:
            page = _rank(query, offset, limit, LARGE)
            assert page == _rank(query, offset, limit, 0), (query, offset, limit)
            assert page, (query, offset, limit)


def test_the_split_serves_the_page_when_it_is_exact(import_synthetic, store_cache_on, monkeypatch):
    import_synthetic(*_documents())
    served: list[bool] = []
    if connection.vendor == "sqlite":
        original = backends.SqliteBackend._ranked

        def spy(self, parsed, candidates, *, split, **options):
            rows = original(self, parsed, candidates, split=split, **options)
            served.append(split is not None)
            return rows

        monkeypatch.setattr(backends.SqliteBackend, "_ranked", spy)
        # The first page of a query with a rare word: one statement, the split one.
        _rank("zzcommon zzrare", 0, 5, LARGE)
        assert served == [True]
        # A page the rare word's cases could fill, but not once the retracted ones are left
        # out: the single pass is run after the split one.
        rare = [case_id for case_id, *_ in _rank("zzrare", 0, 1000, 0)]
        Case.objects.filter(id__in=rare[:3]).update(status=Case.Status.RETRACTED)
        # As a retraction through the services says (`change_status`): the process's case
        # columns, which give the ranking each case's status, are read again.
        store_cache.changed(rare[:3])
        served.clear()
        _rank("zzcommon zzrare", 0, len(rare) - 1, LARGE)
        assert served == [True, False]
        # More rows than the rare word's cases: no split is tried.
        served.clear()
        _rank("zzcommon zzrare", 0, len(rare) + 1, LARGE)
        assert served == [False]
        # Every word common, a small library, or a filter: the single pass alone.
        served.clear()
        _rank("zzcommon", 0, 5, LARGE)
        _rank("zzcommon zzrare", 0, 5, backends.SPLIT_FROM - 1)
        allowed = Case.objects.published().order_by().values("id").query.sql_with_params()
        _rank("zzcommon zzrare", 0, 5, LARGE, candidates=allowed)
        assert served == [False, False, False]
    else:
        # PostgreSQL ranks every match in one statement at any size (the query parsed first:
        # inside the test's transaction the vocabulary is read again each time).
        parsed = interpret("zzcommon zzrare")
        case_columns.held()  # read once a generation, before the statements counted

        def counted(execute, sql, *args):
            served.append(True)
            return execute(sql, *args)

        with connection.execute_wrapper(counted):
            _rank("zzcommon zzrare", 0, 5, LARGE, parsed=parsed)
        assert served == [True]


def test_word_counts_are_read_once_a_generation(
    import_synthetic, store_cache_on, django_assert_num_queries, monkeypatch
):
    import_synthetic(*_documents())
    # As after the import's commit (the test's transaction never commits).
    monkeypatch.setattr(store_cache, "_writing", lambda: False)
    interpret("zzcommon zzrare")  # the vocabulary, kept from here on
    case_columns.held()  # the cases' columns the ranking ends with, kept too
    if connection.vendor == "sqlite":
        with django_assert_num_queries(2):  # the rows of each word counted, then the ranking
            _rank("zzcommon zzrare", 0, 5, LARGE)
    # SQLite: ranked from the phrases' bm25 terms read by the first ranking and held since
    # (`phrase_terms`): no query.
    with django_assert_num_queries(0 if connection.vendor == "sqlite" else 1):
        _rank("zzcommon zzrare", 0, 5, LARGE)
