"""Topics are kinds of failure that partition the library usefully (issue 13, point 4).

Computed from the fixture files themselves: every case has one to three topics, all of them
kinds of the vocabulary; no topic is on more than 40% of the cases; the per-kind counts the
site shows are the ones in the files. Training versus inference is the `workload`, not a topic.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from incidents import selectors
from tests.conftest import CASES_DIR, VOCAB_FILE

# The kinds of issue 13, by the slugs case writers use (/work/coord/CONTENT.md).
KINDS = (
    "training-hang",
    "interconnect",
    "gpu-errors",
    "silent-data-corruption",
    "training-instability",
    "stragglers",
    "checkpoint-storage",
    "scheduler",
    "inference-outage",
    "inference-quality",
    "configuration",
    "software-regression",
    "facility",
)
MAX_SHARE = 0.40
# Former topics kept as synonyms, so that old links and queries still find their kind.
FORMER_TOPICS = {
    "networking": "interconnect",
    "storage": "checkpoint-storage",
    "scheduling": "scheduler",
    "hardware": "gpu-errors",
    "numerics": "training-instability",
}


def documents() -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(CASES_DIR.glob("*.json"))]


def kind_counts() -> Counter[str]:
    return Counter(topic for document in documents() for topic in document["topics"])


def vocabulary() -> dict:
    return json.loads(VOCAB_FILE.read_text(encoding="utf-8"))


def test_the_topics_are_exactly_the_kinds():
    assert [t["slug"] for t in vocabulary()["topics"]] == list(KINDS)
    for topic in vocabulary()["topics"]:
        assert topic["description"].strip() and topic["synonyms"], topic["slug"]


def test_every_case_has_one_to_three_kinds():
    for document in documents():
        topics = document["topics"]
        assert 1 <= len(topics) <= 3, document["id"]
        assert set(topics) <= set(KINDS), document["id"]


def test_no_topic_is_on_more_than_40_percent_of_the_cases():
    total = len(documents())
    counts = kind_counts()
    print(f"\nCases per kind (of {total}):")
    for kind in KINDS:
        print(f"  {kind:24} {counts[kind]:4}  {counts[kind] / total:6.1%}")
    print("  kinds under 10 cases:", ", ".join(k for k in KINDS if counts[k] < 10) or "none")
    assert total >= 141
    assert all(counts[kind] >= 1 for kind in KINDS)
    assert max(counts.values()) <= MAX_SHARE * total, counts.most_common(1)


@pytest.mark.django_db
def test_the_site_counts_each_kind_as_the_files_do():
    counts = kind_counts()
    assert {t.slug: t.case_count for t in selectors.vocabulary("topic")} == {k: counts[k] for k in KINDS}


@pytest.mark.django_db
@pytest.mark.parametrize(("former", "kind"), FORMER_TOPICS.items())
def test_former_topic_slugs_find_their_kind(former, kind):
    assert selectors.find_topic(former).canonical_slug == kind


def test_training_and_inference_are_workloads_not_topics():
    workloads = Counter(d["environment"]["workload"] for d in documents())
    assert [w["slug"] for w in vocabulary()["workloads"]] == ["training", "inference", "fleet"]
    assert set(workloads) <= {"training", "inference", "fleet", None}
    assert workloads["training"] >= 50 and workloads["inference"] >= 30 and workloads["fleet"] >= 1
