"""The organization and accelerator vocabularies are served like the others: the vocab
pages, `GET /api/vocab/`, the MCP `vocab` tool and the stats chart of accelerator families
read the same terms and counts (issue 13, point 4)."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from incidents import selectors
from incidents.models import VOCAB_FACETS
from tests.api.fixture_facts import published_documents
from tests.reads.test_accelerator_and_organization_vocabularies import (
    ORGANIZATIONS,
    VOCAB,
    family_of,
    term_of,
)
from tests.web.html import element
from tests.web.test_stats_page import table_rows

pytestmark = pytest.mark.django_db


def expected_counts() -> dict[tuple[str, str], int]:
    """(facet, term name) -> published cases, from the fixture files: an organization, a
    model and its family each count the case once."""
    counts: Counter = Counter()
    for document in published_documents():
        counts[("organization", ORGANIZATIONS[_key(document["organization"])]["name"])] += 1
        entry = term_of(document)
        if entry is not None:
            counts[("accelerator", entry["name"])] += 1
            if entry.get("family"):
                counts[("accelerator", entry["family"])] += 1
    return dict(counts)


def _key(text: str) -> str:
    from incidents.selectors.spelling import spelling_key

    return spelling_key(text)


def test_the_api_lists_both_vocabularies_with_counts_vendor_and_family(client):
    body = client.get("/api/vocab/").json()
    assert list(body) == [
        "topic",
        "symptom",
        "root_cause",
        "component",
        "workload",
        "organization",
        "accelerator",
    ]
    counts = expected_counts()
    served = {("organization", t["name"]): t["case_count"] for t in body["organization"]}
    served |= {("accelerator", t["name"]): t["case_count"] for t in body["accelerator"]}
    assert {k: v for k, v in served.items() if v} == counts
    assert len(body["organization"]) == len(VOCAB["organizations"])
    a100_80 = next(t for t in body["accelerator"] if t["name"] == "A100 80GB")
    assert a100_80["vendor"] == "NVIDIA" and a100_80["family"] == "a100"
    assert "NVIDIA A100 SXM 80GB" in a100_80["synonyms"]
    assert a100_80["cases_url"].endswith("/api/cases/?accelerator=a100-80gb")
    a100 = next(t for t in body["accelerator"] if t["name"] == "A100")
    assert a100["family"] == "a100"
    assert "vendor" not in body["topic"][0] and "family" not in body["topic"][0]
    one = client.get("/api/vocab/accelerator").json()
    assert one["facet"] == "accelerator" and one["terms"] == body["accelerator"]
    assert client.get("/api/vocab/organization").json()["terms"] == body["organization"]


def test_the_openapi_schema_knows_both_facets(client):
    schema = client.get("/api/schema/").json()
    vocab = schema["components"]["schemas"]["Vocabulary"]
    assert {"organization", "accelerator"} <= set(vocab["properties"]) <= set(vocab["required"])
    term = schema["components"]["schemas"]["Term"]["properties"]
    assert {"vendor", "family"} <= set(term)
    facet = next(
        p for p in schema["paths"]["/api/vocab/{facet}"]["get"]["parameters"] if p["name"] == "facet"
    )
    assert sorted(facet["schema"]["enum"]) == sorted(str(f) for f in VOCAB_FACETS)


def test_the_mcp_vocab_tool_serves_the_same_terms(client, mcp):  # noqa: F811
    result = mcp.ok("vocab", facet="accelerator")
    api = client.get("/api/vocab/accelerator").json()["terms"]
    assert [
        (t["slug"], t["name"], t["case_count"], t["vendor"], t["family"])
        for t in result["terms"]["accelerator"]
    ] == [(t["slug"], t["name"], t["case_count"], t["vendor"], t["family"]) for t in api]
    organizations = mcp.ok("vocab", facet="organization")["terms"]["organization"]
    assert [t["slug"] for t in organizations] == [
        t["slug"] for t in client.get("/api/vocab/organization").json()["terms"]
    ]
    whole = mcp.ok("vocab")
    assert not whole["truncated"]
    assert set(whole["terms"]) == {str(f) for f in VOCAB_FACETS}


def test_the_vocab_index_has_an_organizations_and_an_accelerators_section(client):
    html = client.get("/vocab/").content.decode()
    for segment, title, key in (
        ("organization", "Organizations", "organizations"),
        ("accelerator", "Accelerators", "accelerators"),
    ):
        section = element(html, "section", aria_labelledby=segment)
        assert f'<h2 id="{segment}">{title}</h2>' in section
        assert len(re.findall(r"<h3>", section)) == len(VOCAB[key])
    accelerators = element(html, "section", aria_labelledby="accelerator")
    assert "NVIDIA · model of A100" in accelerators


def test_a_family_page_lists_its_models_and_all_their_cases(client):
    html = client.get("/vocab/accelerator/a100").content.decode()
    a100 = [d for d in published_documents() if family_of(d) == "A100"]
    assert f"Search within its {len(a100)} cases" in html
    for model in ("A100 40GB", "A100 80GB"):
        assert f'<a href="/vocab/accelerator/{model.lower().replace(" ", "-")}">{model}</a>' in html
    model = client.get("/vocab/accelerator/a100-80gb").content.decode()
    assert '<span class="label">Family:</span> <a href="/vocab/accelerator/a100">A100</a>' in model
    meta = client.get("/vocab/organization/meta").content.decode()
    assert "Also called:</span> Meta AI, FAIR, Facebook" in meta


def test_the_stats_chart_counts_families_from_the_vocabulary(client):
    html = client.get("/stats").content.decode()
    figure = element(html, "figure", aria_labelledby="chart-accelerators-h")
    rows = dict(table_rows(figure))
    families = Counter(family_of(d) for d in published_documents() if family_of(d))
    assert rows == {family: str(n) for family, n in families.items()}
    assert 'href="/cases/?accelerator=a100"' in figure
    stats = selectors.case_stats()
    assert stats.with_accelerator == sum(families.values())
