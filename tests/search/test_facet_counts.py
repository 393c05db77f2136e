"""Facet counts over the current result set, against a hand count; include/exclude filters."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from django.utils.text import slugify

from incidents.overlap import case_prose
from incidents.search import search_cases
from incidents.selectors import CaseFilters
from tests.api.fixture_facts import ids_where, published_documents
from tests.reads.test_accelerator_and_organization_vocabularies import accelerator_names, organization_of

pytestmark = pytest.mark.django_db


def counts(results, facet):
    return {f.value: f.count for f in results.facets[facet]}


def documents_mentioning(pattern: str, workload: str | None = None) -> list[dict]:
    """Published fixture documents whose prose has a word matching `pattern` (counted from
    the JSON files, not through search), optionally only those of `workload`."""
    words = re.compile(pattern, re.IGNORECASE)
    return [
        d
        for d in published_documents()
        if (workload is None or d["environment"]["workload"] == workload)
        and any(words.search(p) for p in case_prose(d))
    ]


def scale_band(count: int | None) -> str | None:
    """The `scale` facet's band of an accelerator count, written out here from issue 13's bands."""
    if count is None:
        return None
    return (
        "under-64"
        if count < 64
        else "64-1023"
        if count < 1024
        else "1024-9999"
        if count < 10_000
        else "10000-plus"
    )


def expected_counts(documents: list[dict]) -> dict[str, dict[str, int]]:
    """Facet counts made by hand from case documents, keyed as `search_cases` keys them."""
    return {
        "topic": dict(Counter(t for d in documents for t in d["topics"])),
        "symptom": dict(Counter(slugify(t) for d in documents for t in d["symptoms"]["tags"])),
        "root_cause": dict(Counter(slugify(d["root_cause"]["category"]) for d in documents)),
        "component": dict(Counter(slugify(c) for d in documents for c in d["environment"]["components"])),
        "organization": dict(Counter(slugify(organization_of(d)) for d in documents)),
        "year": dict(Counter(d["published"][:4] for d in documents)),
        # A model's case counts for the model and for its family (issue 13).
        "accelerator": dict(Counter(slugify(name) for d in documents for name in accelerator_names(d))),
        "workload": dict(
            Counter(d["environment"]["workload"] for d in documents if d["environment"]["workload"])
        ),
        "scale": dict(
            Counter(
                band
                for d in documents
                if (band := scale_band(d["environment"]["accelerator_count"])) is not None
            )
        ),
    }


def test_facets_for_a_query_match_a_hand_count():
    # The cases naming etcd, Kubernetes or kubectl (OpenAI's 2018 Kubernetes cases IL-0458 and
    # IL-0459 among them) are the matches, and every facet counts exactly them.
    documents = documents_mentioning(r"\b(etcd|kubernetes|kubectl)\b")
    assert {"IL-0453", "IL-0458", "IL-0459"} <= {d["id"] for d in documents}
    results = search_cases(query="etcd OR kubernetes OR kubectl", limit=100)
    assert len(documents) < 100  # one page holds every match
    assert sorted(h.case.id for h in results.hits) == sorted(d["id"] for d in documents)
    assert results.total == len(documents)
    for facet, expected in expected_counts(documents).items():
        assert counts(results, facet) == expected, facet
    assert counts(results, "component")["kubernetes"] >= 3
    assert counts(results, "symptom")["control-plane-overload"] >= 2  # IL-0453, IL-0458


def test_values_within_a_facet_combine_with_or_and_facets_with_and():
    either = search_cases(filters=CaseFilters(include={"organization": ("openai", "anthropic")}), limit=50)
    assert either.total == len(ids_where(lambda d: d["organization"] in ("OpenAI", "Anthropic")))
    assert either.total > len(ids_where(lambda d: d["organization"] == "OpenAI")) > 0
    both = search_cases(
        filters=CaseFilters(
            include={"organization": ("openai", "anthropic"), "symptom": ("service-outage",)}
        ),
        limit=50,
    )
    expected = ids_where(
        lambda d: d["organization"] in ("OpenAI", "Anthropic") and "Service outage" in d["symptoms"]["tags"]
    )
    assert {"IL-0453", "IL-0454", "IL-0460", "IL-0461"} <= set(expected)
    assert len(expected) < 50
    assert sorted(h.case.id for h in both.hits) == expected


def test_exclusion_removes_cases_from_hits_and_counts():
    results = search_cases(
        query="outage", filters=CaseFilters(exclude={"organization": ("openai",)}), limit=50
    )
    assert all(h.case.organization != "OpenAI" for h in results.hits)
    assert "openai" not in counts(results, "organization")
    assert results.total == len(results.hits)


def test_filters_and_query_together():
    # The inference cases that say hang (hangs, hanging): IL-0463 and IL-0464 among them.
    documents = documents_mentioning(r"\bhang", workload="inference")
    assert {"IL-0463", "IL-0464"} <= {d["id"] for d in documents}
    results = search_cases(query="hang", filters=CaseFilters(include={"workload": ("inference",)}), limit=50)
    assert sorted(h.case.id for h in results.hits) == sorted(d["id"] for d in documents)
    assert counts(results, "workload") == {"inference": len(documents)}


def test_scale_bands_count_cases_by_accelerator_count():
    results = search_cases(filters=CaseFilters(include={"scale": ("10000-plus", "under-64")}), limit=100)
    expected = ids_where(
        lambda d: (n := d["environment"]["accelerator_count"]) is not None and (n >= 10_000 or n < 64)
    )
    assert sorted(h.case.id for h in results.hits) == expected
    assert set(counts(results, "scale")) == {"10000-plus", "under-64"}
    assert sum(counts(results, "scale").values()) == results.total == len(expected)


@pytest.mark.parametrize("query", ["", "GPU hang", "NCCL timeout"])
def test_a_bound_alone_keeps_every_hit_and_count_within_it(query):
    # A numeric bound is a filter like any other: neither the semantic candidates, nor the
    # total and the facet counts (counted once per store for the unfiltered list) may come
    # from the cases outside it.
    bounded = CaseFilters(bounds={"min_accelerators": 1024})
    results = search_cases(query=query, filters=bounded, limit=100)
    within = {d["id"] for d in published_documents() if (d["environment"]["accelerator_count"] or 0) >= 1024}
    assert results.hits
    assert {h.case.id for h in [*results.hits, *results.partial_hits]} <= within
    assert results.total <= len(within)
    assert sum(counts(results, "scale").values()) == results.total
