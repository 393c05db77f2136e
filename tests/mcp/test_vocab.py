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
        'organization, accelerator, error_code (got "symptoms").'
    )


def test_the_error_codes_are_those_of_the_api(client, mcp):
    """search_incidents' error_code filter says "values: vocab": vocab lists the codes, asked
    by the filter's name, with what /api/codes/ serves of each (its links left out, as of
    every term vocab lists) and in its order (by vendor, then name, numbers in order)."""
    result = mcp.ok("vocab", facet="error_code")
    assert list(result["terms"]) == ["error_code"]
    assert not result["truncated"]
    api = client.get("/api/codes/").json()["results"]
    assert len(api) == 47
    assert result["terms"]["error_code"] == [
        {key: value for key, value in code.items() if key not in ("url", "html_url")} for code in api
    ]
    xid79 = next(t for t in result["terms"]["error_code"] if t["slug"] == "xid-79")
    assert xid79["name"] == "Xid 79"
    assert xid79["vendor"] == "NVIDIA driver"
    assert xid79["source_url"] == "https://docs.nvidia.com/deploy/xid-errors/index.html"
    assert xid79["patterns"] and xid79["case_count"] == 2
    # Each slug is a value the error_code filter takes.
    listed = mcp.ok("list_incidents", error_code=xid79["slug"])
    assert listed["total"] == xid79["case_count"]


def test_the_whole_vocabulary_leaves_the_error_codes_to_their_facet(mcp):
    # As /api/vocab/ leaves them to /api/codes/: 47 codes with their meanings and patterns
    # (25 KB) would crowd the other facets out of the budget.
    assert "error_code" not in mcp.ok("vocab")["terms"]
    symptom = mcp.ok("vocab", facet="symptom")["terms"]["symptom"][0]
    assert "source_url" not in symptom and "patterns" not in symptom and "vendor" not in symptom
