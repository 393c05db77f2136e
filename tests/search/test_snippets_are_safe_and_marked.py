"""Snippets are HTML-safe text with the matches inside <mark>."""

from __future__ import annotations

import re

import pytest

from incidents.search import search_cases
from tests.factories import synthetic_case

pytestmark = pytest.mark.django_db


def test_snippet_marks_the_matched_words():
    hit = search_cases(query="etcd quota").hits[0]
    assert hit.case.id == "IL-0458"
    assert hit.snippet is not None
    marked = re.findall(r"<mark>(.*?)</mark>", hit.snippet)
    assert marked
    assert {m.lower() for m in marked} <= {"etcd", "quota", "etcd's"}


def test_snippet_escapes_html_in_case_text(import_synthetic):
    import_synthetic(
        synthetic_case(
            7,
            symptoms={
                "description": "The log said <script>alert('zebrafish')</script> & more",
                "tags": ["Training hang"],
            },
        )
    )
    hit = search_cases(query="zebrafish").hits[0]
    assert hit.case.id == "IL-900007"
    assert hit.snippet is not None
    assert "<script>" not in hit.snippet
    assert "&lt;script&gt;" in hit.snippet
    assert "<mark>zebrafish</mark>" in hit.snippet
    # Only <mark> tags remain as markup.
    assert set(re.findall(r"</?([a-z]+)", hit.snippet)) == {"mark"}


def test_browsing_without_a_query_has_no_snippets_or_scores():
    results = search_cases(limit=5)
    assert all(h.snippet is None and h.score is None for h in results.hits)
    assert results.notes == []
