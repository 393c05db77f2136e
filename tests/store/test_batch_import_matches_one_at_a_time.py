"""Import's batch paths give what the one-document paths give: duplicate warnings from one
URL query and one sparse text product per batch, error codes from RE2's prefilter."""

from __future__ import annotations

import pytest

from incidents.codes import CodeVocabulary, case_text
from incidents.duplicates import batch_duplicates, find_duplicates
from tests.conftest import fixture_ids, load_fixture
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def lookalike_documents() -> list[dict]:
    """New documents that resemble stored cases: a copied source URL (in another spelling),
    a copied text, both, and unrelated synthetic cases."""
    first, second = load_fixture("IL-0428"), load_fixture(fixture_ids()[5])
    same_url = synthetic_case(1)
    same_url["sources"] = [{"url": first["sources"][0]["url"].replace("https://", "http://") + "/"}]
    same_text = {**second, "id": "IL-900002", "sources": [{"url": "https://example.org/other"}]}
    both = {**first, "id": "IL-900003"}
    return [same_url, same_text, both, synthetic_case(4), synthetic_case(5)]


def test_batch_duplicates_equal_each_document_checked_alone():
    documents = lookalike_documents()
    alone = {d["id"]: find_duplicates(d) for d in documents}
    alone = {case_id: found for case_id, found in alone.items() if found}
    batch = batch_duplicates(documents)
    assert batch == alone
    # The lookalikes are found at all (the comparison above is not of two empty results).
    assert {"IL-900001", "IL-900002", "IL-900003"} <= set(batch)


def test_prefiltered_error_codes_equal_every_pattern_searched():
    vocabulary = CodeVocabulary.load()
    texts = [case_text(load_fixture(case_id)) for case_id in fixture_ids()]
    texts += [case_text(synthetic_case(n)) for n in range(40)]
    searched = [
        [name for name, patterns in vocabulary._compiled if any(p.search(text) for p in patterns)]
        for text in texts
    ]
    assert [vocabulary.find(text) for text in texts] == searched
    assert sum(map(len, searched)) >= 30  # codes are found: the lists are not all empty


def test_history_written_from_the_import_equals_the_cases_read_back():
    """Import writes history from the rows it wrote (no second read); each row must hold
    what `record_many` would read: every column and the case document."""
    from incidents.documents import case_document
    from incidents.models import NOT_IN_HISTORY, Case

    History = Case.history.model
    columns = [f.attname for f in Case._meta.concrete_fields if f.name not in NOT_IN_HISTORY]
    latest = {row.id: row for row in History.objects.order_by("history_id")}
    cases = list(Case.objects.with_document())
    assert len(cases) == len(fixture_ids()) and set(latest) == {case.id for case in cases}
    for case in cases:
        row = latest[case.id]
        assert row.document == dict(case_document(case))
        assert {c: getattr(row, c) for c in columns} == {c: getattr(case, c) for c in columns}
        assert row.history_type == "+"
