"""A query that is a version points to "Am I affected?", at every door.

`2.18.1` and `535.104.05` found nothing and `nccl 2.18.1` a case on the word NCCL alone,
while "Am I affected?" lists the cases whose ranges hold NCCL 2.18.1 (a new user's
walkthrough, W36). The answer now ends with a note linking the check with the version filled
in (its component named), or the page to name it on, with the API and the MCP tool.
"""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.version_notes import version_note
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

WHERE = "(API: POST /api/affected; MCP: am_i_affected)"
NCCL = (
    "“nccl 2.18.1” looks like a version of NCCL: Am I affected? lists the cases whose affected "
    f"ranges hold it: /affected/?versions=NCCL+2.18.1 {WHERE}."
)
BARE = (
    "535.104.05 looks like a version: Am I affected? lists the cases whose affected ranges hold "
    "it, written with its component (NCCL 2.19.3, NVIDIA driver 535.104.05, one a line) at "
    f"/affected/ {WHERE}."
)


def test_a_component_and_version_links_the_check_with_it_filled_in(client):
    assert client.get("/api/cases/", {"q": "nccl 2.18.1"}).json()["notes"][-1] == NCCL
    assert InMemoryMcp().ok("search_incidents", query="nccl 2.18.1")["notes"][-1] == NCCL
    page = client.get("/cases/", {"q": "nccl 2.18.1"}).content.decode()
    assert f'<p class="note">{NCCL}</p>' in page
    # The link answers with the cases the API's check lists.
    checked = client.post("/api/affected", {"versions": {"NCCL": "2.18.1"}}, content_type="application/json")
    assert checked.json()["count"] > 0
    assert client.get("/affected/", {"versions": "NCCL 2.18.1"}).status_code == 200


def test_a_version_alone_points_to_the_page_to_name_its_component(client):
    assert client.get("/api/cases/", {"q": "535.104.05"}).json()["notes"][-1] == BARE


@pytest.mark.parametrize(
    ("query", "link"),
    [
        ("torch==2.1.0", "/affected/?versions=PyTorch+2.1.0"),
        ("nvidia-nccl-cu12==2.18.1", "/affected/?versions=NCCL+2.18.1"),
        ("NVIDIA driver 535.104.05", "/affected/?versions=NVIDIA+driver+535.104.05"),
        ("  NCCL   v2.19 ", "/affected/?versions=NCCL+v2.19"),
    ],
)
def test_pip_and_spaced_spellings_name_the_component(query, link):
    note = version_note(query)
    assert note is not None and f": {link} {WHERE}." in note


@pytest.mark.parametrize(
    "query", ["xid 79", "2024", "nccl timeout 2.18", "numpy 1.26.4", "python 3.10", "nccl hang", ""]
)
def test_other_queries_get_no_version_note(query):
    assert version_note(query) is None
    assert not any("looks like a version" in n for n in search_cases(query=query, limit=1).notes)
