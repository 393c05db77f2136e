"""Facet counts over the current result set, against a hand count; include/exclude filters."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.selectors import CaseFilters

pytestmark = pytest.mark.django_db


def counts(results, facet):
    return {f.value: f.count for f in results.facets[facet]}


def test_facets_for_a_query_match_a_hand_count():
    # Counted by hand from fixtures/cases: the three Kubernetes cases, IL-0453 (2024, Change
    # rollout), IL-0458 (2018, Capacity exhaustion, etcd) and IL-0459 (2018, Configuration
    # error); two of them are tagged Control plane overload (IL-0453, IL-0458).
    results = search_cases(query="etcd OR kubernetes OR kubectl", limit=50)
    assert sorted(h.case.id for h in results.hits) == ["IL-0453", "IL-0458", "IL-0459"]
    assert results.total == 3
    assert counts(results, "year") == {"2024": 1, "2018": 2}
    assert counts(results, "organization") == {"openai": 3}
    assert counts(results, "component")["kubernetes"] == 3
    assert counts(results, "component")["etcd"] == 1
    assert counts(results, "root_cause") == {
        "change-rollout": 1,
        "capacity-exhaustion": 1,
        "configuration-error": 1,
    }
    assert counts(results, "symptom")["control-plane-overload"] == 2
    assert counts(results, "accelerator") == {}


def test_values_within_a_facet_combine_with_or_and_facets_with_and():
    either = search_cases(filters=CaseFilters(include={"organization": ("openai", "anthropic")}), limit=50)
    assert either.total == 9  # OpenAI: 0453 0454 0458-0461; Anthropic: 0455-0457
    both = search_cases(
        filters=CaseFilters(
            include={"organization": ("openai", "anthropic"), "symptom": ("service-outage",)}
        ),
        limit=50,
    )
    assert sorted(h.case.id for h in both.hits) == ["IL-0453", "IL-0454", "IL-0460", "IL-0461"]


def test_exclusion_removes_cases_from_hits_and_counts():
    results = search_cases(
        query="outage", filters=CaseFilters(exclude={"organization": ("openai",)}), limit=50
    )
    assert all(h.case.organization != "OpenAI" for h in results.hits)
    assert "openai" not in counts(results, "organization")
    assert results.total == len(results.hits)


def test_filters_and_query_together():
    results = search_cases(query="hang", filters=CaseFilters(include={"topic": ("inference",)}), limit=50)
    assert sorted(h.case.id for h in results.hits) == ["IL-0463", "IL-0464"]
    assert counts(results, "topic")["inference"] == 2
