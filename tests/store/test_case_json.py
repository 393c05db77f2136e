"""The JSON twins: the case document as in the schema, and paginated summaries."""

from __future__ import annotations

import jsonschema
import pytest

from incidents.document_model import case_model
from incidents.models import Case
from tests.conftest import fixture_ids, load_fixture

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("case_id", fixture_ids())
def test_detail_json_of_every_fixture_validates_against_the_schema(client, case_id):
    response = client.get(f"/api/cases/{case_id}")
    assert response.status_code == 200
    document = response.json()
    assert document.pop("url") == f"http://testserver/api/cases/{case_id}"
    assert document.pop("html_url") == f"http://testserver/cases/{case_id}"
    assert document.pop("similar_url") == f"http://testserver/api/cases/{case_id}/similar"
    assert document.pop("history_url") == f"http://testserver/api/cases/{case_id}/history"
    assert document.pop("retraction_reason") is None
    assert document.pop("modified").endswith("Z")
    jsonschema.validate(document, case_model().schema, format_checker=jsonschema.FormatChecker())
    fixture = load_fixture(case_id)
    assert document["title"] == fixture["title"]
    assert document["symptoms"] == fixture["symptoms"]
    assert document["root_cause"]["category"] == fixture["root_cause"]["category"]


def test_detail_json_keeps_nulls_and_order(client):
    document = client.get("/api/cases/IL-0428").json()
    assert document["facts"] == {
        "severity": None,
        "scope": (
            "Test runs of 100B-200B models on 320-384 A100 GPUs hung; each hang left "
            "nodes down until rebooted, 13 of 52 at one point"
        ),
        "users_affected": None,
        "region": None,
        "time_to_detect": None,
        "time_to_resolve": None,
    }
    assert document["environment"]["components"] == [
        "Megatron-LM",
        "DeepSpeed",
        "NCCL",
        "PyTorch",
        "apex FusedAdam",
        "Slurm",
        "py-spy",
    ]
    rows = document["scale_tables"][0]["rows"]
    assert rows[1] == {
        "values": {"params": "<100B", "nodes": 40, "setting": "TP=8, PP=10, DP=4"},
        "outcome": "worked",
        "note": None,
    }
    assert [r["outcome"] for r in rows][:4] == ["worked", "worked", "intermittent", "failed"]


def test_unknown_id_is_a_404_problem(client):
    response = client.get("/api/cases/IL-9999")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    # No id is one digit away from 9999: the closest are the highest numbers.
    highest = sorted(Case.objects.visible().values_list("id", flat=True))[-3:][::-1]
    assert response.json() == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "No case with id 'IL-9999'.",
        "instance": "/api/cases/IL-9999",
        "errors": [
            {
                "parameter": "case_id",
                "detail": "no published or retracted case has this id",
                "value": "IL-9999",
                "suggestions": highest,
            }
        ],
    }


def test_list_gives_paginated_summaries_newest_first(client):
    body = client.get("/api/cases/").json()
    assert body["count"] == len(fixture_ids())
    published = [item["published"] for item in body["results"]]
    assert published == sorted(published, reverse=True)
    entries, url = [], "/api/cases/?page_size=100"
    while url:  # IL-0428 is among the oldest: follow the pages to it
        page = client.get(url).json()
        entries += [item for item in page["results"] if item["id"] == "IL-0428"]
        url = page["next"]
    [entry] = entries
    fixture = load_fixture("IL-0428")
    assert entry == {
        "id": "IL-0428",
        "title": fixture["title"],
        "organization": fixture["organization"],
        "published": fixture["published"],
        "topics": fixture["topics"],
        "symptom_tags": fixture["symptoms"]["tags"],
        "status": "published",
        "root_cause_category": fixture["root_cause"]["category"],
        "components": fixture["environment"]["components"],
        "accelerator": fixture["environment"]["accelerator"],
        "url": "http://testserver/api/cases/IL-0428",
        "html_url": "http://testserver/cases/IL-0428",
        "score": None,
        "confidence": None,
        "snippet": None,
        "matched_terms": [],
        "why": None,
        "like": None,
    }
