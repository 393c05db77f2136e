"""A query naming an upstream record no case cites says so, with a way on, at every door.

Pasting a GitHub issue no case cites answered "Cases citing <url> (references and
sources)." over an empty list (a new user's walkthrough, W26). The answer now says no case
cites it yet, the record's words to search instead and where to propose it; a record a
case cites keeps the "Cases citing" note over its cases.
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.citing_notes import record_words
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

ISSUE = "https://github.com/vllm-project/vllm/issues/1"
UNCITED = (
    f"No case cites {ISSUE} yet (in its references or sources): search its words instead (vllm), "
    "or propose it as a case at /propose/."
)


def test_an_issue_no_case_cites_is_said_so_with_its_words_and_the_proposal_form(client):
    answer = client.get("/api/cases/", {"q": ISSUE}).json()
    assert (answer["count"], answer["results"], answer["notes"]) == (0, [], [UNCITED])
    assert InMemoryMcp().ok("search_incidents", query=ISSUE)["notes"] == [UNCITED]
    page = client.get("/cases/", {"q": ISSUE}).content.decode()
    assert (
        f"<p>No case cites {ISSUE} yet (in its references or sources): search its words instead "
        '(<a href="/cases/?q=vllm">vllm</a>), or <a href="/propose/">propose it as a case</a>.</p>'
    ) in page
    assert "Cases citing" not in page
    assert "No case uses these words" not in page
    assert UNCITED not in page  # said once, in the paragraph with links


def test_words_beside_an_uncited_record_get_the_same_answer(client):
    page = client.get("/cases/", {"q": "NVIDIA/nccl#99999 hang"}).content.decode()
    assert '(<a href="/cases/?q=nccl">nccl</a>), or <a href="/propose/">' in page
    results = search_cases(query="NVIDIA/nccl#99999 hang")
    assert (results.total, results.notes) == (
        0,
        [
            "No case cites NVIDIA/nccl#99999 yet (in its references or sources): search its words "
            "instead (nccl), or propose it as a case at /propose/."
        ],
    )


def test_a_record_a_case_cites_keeps_its_note_over_its_cases():
    results = search_cases(query="https://github.com/NVIDIA/nccl/issues/426")
    assert [h.case.id for h in results.hits] == ["IL-0450"]
    assert results.notes == [
        "Cases citing https://github.com/NVIDIA/nccl/issues/426 (references and sources)."
    ]


@pytest.mark.parametrize(
    ("reference", "words"),
    [
        ("https://github.com/vllm-project/vllm/issues/1", "vllm"),
        ("https://gitlab.com/nvidia/container-toolkit/-/issues/9", "container-toolkit"),
        ("https://status.openai.com/incidents/01JMYB4", "openai"),
        ("https://www.nvidia.com/en-us/security/", "nvidia"),
        ("NVIDIA/nccl#1405", "nccl"),
    ],
)
def test_a_record_s_words_are_its_repository_or_its_site(reference, words):
    assert record_words(reference) == words
