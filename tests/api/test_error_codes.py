"""Error codes through every door (issue 15, points 1-2): `/codes/`, `/codes/<slug>`, their
JSON twins `/api/codes/...` and MCP `explain_error` read the same selectors and agree."""

from __future__ import annotations

import pytest

from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db


def test_the_index_lists_every_code_with_its_case_count(client):
    body = client.get("/api/codes/").json()
    by_name = {code["name"]: code for code in body["results"]}
    assert len(by_name) == 47
    assert by_name["cudaErrorMemoryAllocation"]["case_count"] == 3
    # Added for the CUDA errors IL-0503, IL-0486 and IL-0533 print (1, 401, 804).
    assert [
        by_name[n]["case_count"]
        for n in ("cudaErrorInvalidValue", "cudaErrorIllegalState", "cudaErrorCompatNotSupportedOnDevice")
    ] == [1, 1, 1]
    assert by_name["Xid 79"]["case_count"] == 2
    assert by_name["Xid 79"]["source_url"] == "https://docs.nvidia.com/deploy/xid-errors/index.html"
    assert by_name["Xid 79"]["html_url"] == "http://testserver/codes/xid-79"
    # Vendor, then numbers read as numbers.
    xids = [c["name"] for c in body["results"] if c["vendor"] == "NVIDIA driver"]
    assert xids[:3] == ["Xid 13", "Xid 31", "Xid 43"]
    assert xids[-2:] == ["Xid 145", "Xid 149"]


def test_a_code_gives_its_cases_root_causes_and_checks(client):
    body = client.get("/api/codes/cuda-error-memory-allocation").json()
    assert body["name"] == "cudaErrorMemoryAllocation"
    assert body["vendor"] == "CUDA runtime"
    assert body["case_count"] == 3
    assert [case["id"] for case in body["cases"]] == ["IL-0488", "IL-0452", "IL-0465"]
    assert body["root_causes"] == [
        {"slug": "software-bug", "name": "Software bug", "count": 2, "total": 3},
        {"slug": "hardware-fault", "name": "Hardware fault", "count": 1, "total": 3},
    ]
    assert {check["case_id"] for check in body["checks"]} <= {"IL-0488", "IL-0452", "IL-0465"}
    assert body["checks"]


def test_error_codes_filter_case_lists_like_any_facet(client):
    body = client.get("/api/cases/?error_code=xid-79&sort=newest").json()
    assert [case["id"] for case in body["results"]] == ["IL-0523", "IL-0444"]
    by_name = client.get("/api/cases/", {"error_code": "Xid 79", "sort": "newest"}).json()
    assert [case["id"] for case in by_name["results"]] == ["IL-0523", "IL-0444"]
    assert {"value": "xid-79", "label": "Xid 79", "count": 2} in body["facets"]["error_code"]
    excluded = client.get("/api/cases/?exclude_error_code=xid-79").json()
    assert excluded["count"] == client.get("/api/cases/").json()["count"] - 2
    wrong = client.get("/api/cases/?error_code=xid-7").json()["errors"][0]
    assert wrong["parameter"] == "error_code"


def test_a_code_by_name_redirects_and_an_unknown_one_is_a_404(client):
    response = client.get("/api/codes/Xid%2079")
    assert (response.status_code, response["Location"]) == (301, "/api/codes/xid-79")
    response = client.get("/api/codes/xid-97")
    assert response.status_code == 404
    # In the page's words (`/codes/xid-97`), the closest codes as the filter suggests them.
    problem = response.json()
    assert problem["detail"] == "No error code called “xid-97”. Did you mean Xid 79, Xid 94 or Xid 95?"
    [error] = problem["errors"]
    assert (error["parameter"], error["detail"]) == ("slug", "unknown error code 'xid-97'")
    assert error["suggestions"] == ["xid-79", "xid-94", "xid-95"]
    page = client.get("/codes/xid-97").content.decode()
    assert "No error code called “xid-97”. Did you mean" in page
    assert client.get("/api/codes/xid-79?limit=3").json()["errors"][0]["parameter"] == "limit"


def test_the_code_page_runs_a_fixed_number_of_queries(client, django_assert_num_queries):
    # Version (2), the term, its cases with their root causes, their term links.
    with django_assert_num_queries(5):
        assert client.get("/api/codes/ibv-wc-retry-exc-err").status_code == 200


def test_the_pages_show_meaning_source_causes_and_cases(client):
    html = client.get("/codes/ibv-wc-retry-exc-err").content.decode()
    assert "transport retry counter exceeded" in html
    assert 'href="https://man7.org/linux/man-pages/man3/ibv_poll_cq.3.html"' in html
    count = '<span class="count">2 of 2<span class="sr-only"> cases</span></span>'
    assert f"Configuration error</a> {count}" in html
    assert 'href="/cases/IL-0450"' in html and 'href="/cases/IL-0485"' in html
    index = client.get("/codes/")
    assert index["Link"] == '</api/codes/>; rel="alternate"; type="application/json"'
    assert 'href="/codes/xid-79"' in index.content.decode()
    assert client.get("/codes/Xid%2079")["Location"] == "/codes/xid-79"
    assert client.get("/codes/nope").status_code == 404
    feed = client.get("/feeds/codes/ibv-wc-retry-exc-err.atom").content.decode()
    assert "incidentlib: cases that showed IBV_WC_RETRY_EXC_ERR" in feed
    assert feed.count("<entry>") == 2
    assert client.get("/feeds/codes/nope.atom").status_code == 404


def test_a_case_page_links_its_codes_versions_and_records(client):
    html = client.get("/cases/IL-0602").content.decode()
    assert "NCCL: 2.19.1, 2.19.3, 2.19.4; introduced in 2.19.1; fixed in 2.20.3" in html
    assert ">NVIDIA/nccl#1116</a> (closed, fixed in 2.20.3)" in html
    html = client.get("/cases/IL-0450").content.decode()
    assert '<a href="/codes/ibv-wc-retry-exc-err"><code>IBV_WC_RETRY_EXC_ERR</code></a>' in html


def test_explain_error_says_the_same_as_the_api(client):
    mcp = InMemoryMcp()
    answer = mcp.ok(
        "explain_error", text="NVRM: Xid (PCI:0000:3b:00): 79, pid=2411, GPU has fallen off the bus."
    )
    [code] = answer["codes"]
    api = client.get("/api/codes/xid-79").json()
    assert (code["slug"], code["meaning"], code["source_url"]) == (
        "xid-79",
        api["description"],
        api["source_url"],
    )
    assert code["root_causes"] == [f"{r['name']}: {r['count']} of {r['total']}" for r in api["root_causes"]]
    assert [case["id"] for case in code["cases"]] == [case["id"] for case in api["cases"]][:5]
    assert code["html_url"].endswith("/codes/xid-79")
    assert mcp.ok("explain_error", text="ncclsystemerror")["codes"][0]["name"] == "ncclSystemError"
    nothing = mcp.ok("explain_error", text="everything is fine")
    assert nothing["codes"] == []
    assert nothing["notes"] == ["No known error code in the text; try match_log or search_incidents."]
