"""A query naming an upstream record a case cites (`NVIDIA/nccl#1116`, cited by IL-0602 in
its `references` and `sources`) finds that case as a strong match of score 1, the same on
the page, in the API and in MCP: an exact reference is the strongest evidence there is. Its
hits used to be listed like the browse view, with a null score and no label."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings

from incidents.models import Case
from incidents.search import search_cases
from tests.mcp.conftest import InMemoryMcp
from tests.web.html import element, text_of

pytestmark = pytest.mark.django_db

REFERENCE = "NVIDIA/nccl#1116"
CITING = "IL-0602"
PAPER = "arXiv:2402.15627"  # the ByteDance MegaScale paper, the first source of five cases
CITING_PAPER = ["IL-0441", "IL-0442", "IL-0545", "IL-0579", "IL-0580"]


def test_the_fixture_cites_the_record():
    document = json.loads((Path(settings.FIXTURES_DIR) / "cases" / f"{CITING}.json").read_text())
    assert REFERENCE in [reference["id"] for reference in document["references"]]


@pytest.mark.parametrize(
    "query", [REFERENCE, "nccl#1116", "https://github.com/NVIDIA/nccl/issues/1116", f"{REFERENCE} -zyxwvu"]
)
def test_every_case_citing_it_is_strong_with_score_one(query):
    results = search_cases(query=query)
    assert [(hit.case.id, hit.score, hit.confidence) for hit in results.hits] == [(CITING, 1.0, "strong")]
    assert (results.total, results.partial_hits, results.browsing) == (1, [], False)


def test_a_record_cited_by_several_cases_lists_them_all_strong_newest_first():
    results = search_cases(query=PAPER)
    newest_first = list(Case.objects.filter(id__in=CITING_PAPER).newest_first().values_list("id", flat=True))
    assert sorted(newest_first) == CITING_PAPER
    assert [(hit.case.id, hit.score, hit.confidence) for hit in results.hits] == [
        (case_id, 1.0, "strong") for case_id in newest_first
    ]


def test_words_beside_the_reference_still_rank_and_label_the_citing_cases():
    [hit] = search_cases(query=f"{REFERENCE} all-to-all hang").hits
    assert hit.case.id == CITING
    assert hit.confidence == "strong"
    assert hit.score is not None and 0 < hit.score < 1  # the words' calibrated probability


def test_browsing_is_still_unscored():
    hit = search_cases(query="").hits[0]
    assert (hit.score, hit.confidence) == (None, None)


def test_the_api_gives_the_score_and_the_label(client):
    body = client.get("/api/cases/", {"q": REFERENCE}).json()
    assert [(hit["id"], hit["score"], hit["confidence"]) for hit in body["results"]] == [
        (CITING, 1.0, "strong")
    ]
    assert body["count"] == 1


def test_search_incidents_gives_the_score_and_the_label():
    result = InMemoryMcp().ok("search_incidents", query=REFERENCE)
    assert [(hit["id"], hit["score"], hit["confidence"]) for hit in result["hits"]] == [
        (CITING, 1.0, "strong")
    ]


def test_the_page_shows_the_label(client):
    html = client.get("/cases/", {"q": REFERENCE}).content.decode()
    card = text_of(element(html, "section", class_="results"))
    assert f"Strong match · {CITING}" in card
