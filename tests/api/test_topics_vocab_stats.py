"""GET /api/topics/, /api/topics/{slug}, /api/vocab/, /api/vocab/{facet}, /api/stats."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from django.conf import settings
from django.utils.text import slugify

from incidents.durations import duration_seconds
from tests.reads.test_accelerator_and_organization_vocabularies import family_of, term_of

from .conftest import assert_matches_schema
from .fixture_facts import ids_where, published_documents, symptom_counts, year_counts

pytestmark = pytest.mark.django_db

VOCAB = json.loads((settings.FIXTURES_DIR / "vocab.json").read_text(encoding="utf-8"))


def test_topics_list_every_topic_with_its_case_count(client):
    response = client.get("/api/topics/")
    assert_matches_schema(response, "/api/topics/")
    topics = {t["slug"]: t for t in response.json()["results"]}
    assert set(topics) == {t["slug"] for t in VOCAB["topics"]}
    hangs = topics["training-hang"]
    assert hangs["case_count"] == len(ids_where(lambda d: "training-hang" in d["topics"]))
    assert hangs["url"] == "http://testserver/api/topics/training-hang"
    assert hangs["cases_url"] == "http://testserver/api/cases/?topic=training-hang"
    assert hangs["description"] == next(
        t["description"] for t in VOCAB["topics"] if t["slug"] == "training-hang"
    )


def test_a_topic_overview_counts_what_its_cases_share(client):
    response = client.get("/api/topics/interconnect?top=3&latest=2")
    assert response.status_code == 200
    assert_matches_schema(response, "/api/topics/{slug}")
    body = response.json()
    in_topic = [d for d in published_documents() if "interconnect" in d["topics"]]
    assert body["case_count"] == len(in_topic)
    symptoms = Counter(tag for d in in_topic for tag in d["symptoms"]["tags"])
    top = body["top_symptoms"]
    assert len(top) == 3
    assert [(s["name"], s["count"]) for s in top] == sorted(
        ((name, n) for name, n in symptoms.items()), key=lambda p: (-p[1], p[0])
    )[:3]
    causes = Counter(d["root_cause"]["category"] for d in in_topic)
    assert {c["name"]: c["count"] for c in body["top_root_causes"]} == dict(
        sorted(causes.items(), key=lambda p: (-p[1], p[0]))[:3]
    )
    newest = sorted(in_topic, key=lambda d: (d["published"], d["id"]), reverse=True)[:2]
    assert [c["id"] for c in body["latest_cases"]] == [d["id"] for d in newest]


def test_vocab_lists_terms_of_every_facet_with_counts(client):
    response = client.get("/api/vocab/")
    assert_matches_schema(response, "/api/vocab/")
    body = response.json()
    assert [t["name"] for t in body["root_cause"]] == sorted(t["name"] for t in VOCAB["root_causes"])
    [nccl] = [t for t in body["symptom"] if t["slug"] == "nccl-timeout"]
    defined = next(t for t in VOCAB["symptom_tags"] if t["name"] == "NCCL timeout")
    assert nccl == {
        "slug": "nccl-timeout",
        "name": "NCCL timeout",
        "description": defined["description"],
        "synonyms": defined.get("synonyms", []),
        "case_count": symptom_counts()["nccl-timeout"],
        "cases_url": "http://testserver/api/cases/?symptom=nccl-timeout",
    }


def test_vocab_of_one_facet(client):
    response = client.get("/api/vocab/component")
    assert_matches_schema(response, "/api/vocab/{facet}")
    body = response.json()
    assert body["facet"] == "component"
    counts = Counter(
        slugify(c) for d in published_documents() for c in d["environment"].get("components", [])
    )
    assert {t["slug"]: t["case_count"] for t in body["terms"] if t["case_count"]} == dict(counts)


def test_stats_count_by_year_cause_symptom_accelerator_and_resolve_time(client):
    response = client.get("/api/stats")
    assert_matches_schema(response, "/api/stats")
    body = response.json()
    documents = published_documents()
    assert body["total"] == len(documents)
    assert {y["year"]: y["count"] for y in body["by_year"]} == year_counts()
    assert [y["year"] for y in body["by_year"]] == sorted(year_counts())
    causes = Counter(d["root_cause"]["category"] for d in documents)
    assert {c["name"]: c["count"] for c in body["by_root_cause"]} == dict(causes)
    assert {s["slug"]: s["count"] for s in body["by_symptom"]} == dict(symptom_counts())
    # Accelerators by family, from the vocabulary file: a model's cases count for its family.
    families = Counter(family_of(d) for d in documents if family_of(d))
    assert {a["accelerator"]: a["count"] for a in body["by_accelerator_family"]} == dict(families)
    assert all(a["is_family"] for a in body["by_accelerator_family"])
    models = {a["accelerator"]: a["count"] for a in body["by_accelerator"] if not a["is_family"]}
    named = [entry for d in documents if (entry := term_of(d)) is not None]
    assert models == dict(Counter(entry["name"] for entry in named if entry.get("family")))
    resolve = sorted(
        seconds
        for d in documents
        if (seconds := duration_seconds(d["facts"].get("time_to_resolve"))) is not None
    )
    ttr = body["time_to_resolve_seconds"]
    assert (ttr["known"], ttr["unknown"]) == (len(resolve), len(documents) - len(resolve))
    assert (ttr["min"], ttr["max"]) == (resolve[0], resolve[-1])
    assert ttr["median"] == resolve[(len(resolve) + 1) // 2 - 1]
    assert sum(b["count"] for b in ttr["buckets"]) == len(resolve)
    assert [b["label"] for b in ttr["buckets"]] == [
        "under 1 hour",
        "1 to 6 hours",
        "6 to 24 hours",
        "1 to 7 days",
        "7 days or more",
    ]
    assert ttr["buckets"][0]["count"] == sum(1 for s in resolve if s < 3600)
