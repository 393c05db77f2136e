"""GET /api/cases/: filters, exclusion, dates, ordering, pagination, fields, search."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .conftest import assert_matches_schema
from .fixture_facts import has_symptom, ids_where, published_documents

pytestmark = pytest.mark.django_db


def all_ids(client, query: str) -> list[str]:
    """Every id the list gives for `query`, following the pages (100 a page)."""
    url, ids, count = f"/api/cases/?page_size=100&{query}", [], None
    while url:
        body = client.get(url).json()
        count = body["count"] if count is None else count
        assert body["count"] == count
        ids += [item["id"] for item in body["results"]]
        url = body["next"]
    assert count == len(ids)
    return ids


def test_it_lists_every_published_case_newest_first_with_facets(client):
    response = client.get("/api/cases/?page_size=100")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/")
    body = response.json()
    expected = sorted(published_documents(), key=lambda d: (d["published"], d["id"]), reverse=True)
    assert [item["id"] for item in body["results"]] == [d["id"] for d in expected][:100]
    assert body["count"] == len(expected)
    more = len(expected) > 100
    assert (body["page"], body["page_size"], body["previous"]) == (1, 100, None)
    assert body["next"] == ("http://testserver/api/cases/?page=2&page_size=100" if more else None)
    assert all_ids(client, "") == [d["id"] for d in expected]
    [nccl] = [f for f in body["facets"]["symptom"] if f["value"] == "nccl-timeout"]
    assert nccl == {
        "value": "nccl-timeout",
        "label": "NCCL timeout",
        "count": len(ids_where(has_symptom("NCCL timeout"))),
    }
    assert set(body["facets"]) == {
        "topic",
        "symptom",
        "root_cause",
        "component",
        "organization",
        "year",
        "accelerator",
        "workload",
        "scale",
        "error_code",
    }


def test_it_filters_by_one_symptom(client):
    assert sorted(all_ids(client, "symptom=nccl-timeout")) == ids_where(has_symptom("NCCL timeout"))


def test_repeated_values_of_one_facet_combine_with_or(client):
    expected = ids_where(lambda d: {"Loss spike", "Xid error"} & set(d["symptoms"]["tags"]))
    assert sorted(all_ids(client, "symptom=loss-spike&symptom=xid-error")) == expected


def test_different_facets_combine_with_and(client):
    expected = ids_where(
        lambda d: (
            "Training job failure" in d["symptoms"]["tags"]
            and d["root_cause"]["category"] == "Hardware fault"
        )
    )
    assert expected  # the fixtures hold such cases
    found = all_ids(client, "symptom=training-job-failure&root_cause=hardware-fault")
    assert sorted(found) == expected


def test_exclusion_removes_cases_with_the_value(client):
    expected = ids_where(
        lambda d: (
            d["environment"]["workload"] == "training" and d["root_cause"]["category"] != "Hardware fault"
        )
    )
    found = all_ids(client, "workload=training&exclude_root_cause=hardware-fault")
    assert sorted(found) == expected


def test_it_filters_by_organization_accelerator_component_and_year(client):
    assert sorted(all_ids(client, "organization=BigScience")) == ids_where(
        lambda d: d["organization"] == "BigScience"
    )
    tpu_v4 = ids_where(lambda d: d["environment"].get("accelerator") == "Google TPU v4")
    assert tpu_v4  # the fixtures hold such cases
    assert sorted(all_ids(client, "accelerator=google+tpu+v4")) == tpu_v4
    assert sorted(all_ids(client, "component=nccl")) == ids_where(
        lambda d: "NCCL" in d["environment"].get("components", [])
    )
    assert sorted(all_ids(client, "year=2018&year=2020")) == ids_where(
        lambda d: d["published"][:4] in ("2018", "2020")
    )
    assert sorted(all_ids(client, "exclude_year=2024")) == ids_where(
        lambda d: not d["published"].startswith("2024")
    )


def test_published_range_is_inclusive(client):
    found = all_ids(client, "published_after=2022-04-06&published_before=2022-05-02")
    expected = ids_where(lambda d: "2022-04-06" <= d["published"] <= "2022-05-02")
    assert sorted(found) == expected
    assert {"IL-0434", "IL-0429", "IL-0430"} <= set(found)  # both ends included


def test_ordering_published_is_oldest_first(client):
    found = all_ids(client, "ordering=published")
    expected = sorted(published_documents(), key=lambda d: (d["published"], d["id"]))
    assert found == [d["id"] for d in expected]


def test_pages_report_the_total_and_link_each_other(client):
    total = len(published_documents())
    first = client.get("/api/cases/?page_size=5&symptom=job-interruption").json()
    expected = ids_where(has_symptom("Job interruption"))
    assert first["count"] == len(expected) > 5
    assert first["next"] == "http://testserver/api/cases/?page=2&page_size=5&symptom=job-interruption"
    assert first["previous"] is None
    second = client.get(first["next"]).json()
    assert second["page"] == 2
    assert second["previous"] == "http://testserver/api/cases/?page_size=5&symptom=job-interruption"
    assert not {i["id"] for i in first["results"]} & {i["id"] for i in second["results"]}
    last_page = -(-total // 10)
    last = client.get(f"/api/cases/?page_size=10&page={last_page}").json()
    assert last["next"] is None and len(last["results"]) == total - 10 * (last_page - 1)


def test_fields_picks_fields_and_always_keeps_the_id(client):
    response = client.get(
        "/api/cases/?fields=title,published&organization=BigScience&ordering=published&page_size=1"
    )
    assert_matches_schema(response, "/api/cases/")
    oldest = min(
        (d["published"], d["id"]) for d in published_documents() if d["organization"] == "BigScience"
    )
    assert response.json()["results"] == [
        {
            "id": oldest[1],
            "published": oldest[0],
            "title": load_title(oldest[1]),
        }
    ]


def load_title(case_id: str) -> str:
    from tests.conftest import load_fixture

    return load_fixture(case_id)["title"]


def test_a_query_returns_matching_cases_with_scores_and_snippets(client):
    response = client.get("/api/cases/?q=Jean+Zay&fields=title,score,snippet")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/")
    body = response.json()
    found = [item["id"] for item in body["results"]]
    assert "IL-0428" in found
    assert body["count"] == len(found)


def test_a_query_combines_with_filters(client):
    found = all_ids(client, "q=NCCL&exclude_organization=BigScience")
    assert found and "IL-0428" not in found
    documents = {d["id"]: d for d in published_documents()}
    assert all(documents[i]["organization"] != "BigScience" for i in found)


def test_facets_false_leaves_the_counts_out_and_saves_their_query(client):
    with CaptureQueriesContext(connection) as counted:
        full = client.get("/api/cases/?q=NCCL+timeout").json()
    with CaptureQueriesContext(connection) as skipped:
        response = client.get("/api/cases/?q=NCCL+timeout&facets=false")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/cases/")
    body = response.json()
    assert body["facets"] == {}
    assert full["facets"]["symptom"]
    # The same cases and total, one grouped facet query fewer.
    assert [r["id"] for r in body["results"]] == [r["id"] for r in full["results"]]
    assert body["count"] == full["count"]
    assert len(skipped.captured_queries) == len(counted.captured_queries) - 1
    assert client.get("/api/cases/?q=NCCL+timeout&facets=true").json()["facets"] == full["facets"]
    [error] = client.get("/api/cases/?facets=no").json()["errors"]
    assert (error["parameter"], error["value"]) == ("facets", "no")
