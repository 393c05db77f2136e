"""vocab: the filter values, with descriptions, synonyms and case counts."""

from __future__ import annotations

from incidents import selectors


def test_every_facet_with_counts(mcp):
    result = mcp.ok("vocab")
    assert list(result["terms"]) == [
        "accelerator",
        "component",
        "organization",
        "root_cause",
        "symptom",
        "topic",
        "workload",
    ]
    stored = {(t.facet, t.slug): t.case_count for t in selectors.vocabulary()}
    listed = {(facet, t["slug"]): t["case_count"] for facet, terms in result["terms"].items() for t in terms}
    assert listed == stored
    hang = next(t for t in result["terms"]["symptom"] if t["slug"] == "training-hang")
    assert hang["name"] == "Training hang"
    assert hang["synonyms"] == ["hang", "stuck", "deadlock", "frozen", "no progress"]
    assert hang["description"]
    assert hang["case_count"] == stored[("symptom", "training-hang")] >= 5


def test_one_facet(mcp):
    result = mcp.ok("vocab", facet="root_cause")
    assert list(result["terms"]) == ["root_cause"]
    names = [t["name"] for t in result["terms"]["root_cause"]]
    assert names == sorted(names)
    assert "Hardware fault" in names


def test_an_unknown_facet_lists_the_facets(mcp):
    assert mcp.error("vocab", facet="symptoms") == (
        "Invalid arguments: facet must be one of topic, symptom, root_cause, component, workload, "
        'organization, accelerator (got "symptoms").'
    )
