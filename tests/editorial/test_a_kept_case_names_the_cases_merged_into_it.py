"""A kept case's page names the cases merged into it.

The merged case's page redirects to the kept case and its history says where it went, but
the kept case's page said nothing of the duplicates merged into it: a reader arriving from
IL-0429's old link on IL-0428 could not tell why, nor find IL-0429's history. The API case
document is left as it is: the case schema (`incidents/case.schema.json`, additional
properties false) has no field for it, and `GET /api/cases/{id}/history` says it
(`merged_from`).
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from incidents import selectors, services

pytestmark = pytest.mark.django_db


def merged_line(page: str) -> str | None:
    found = re.search(r'<p class="meta merged-from">(.*?)</p>', page, re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", "", found[1])).split()) if found else None


def test_the_kept_case_names_each_case_merged_into_it_with_its_history(client, reviewer):
    services.merge_cases("IL-0431", "IL-0428", user=reviewer, reason="same outage")
    services.merge_cases("IL-0429", "IL-0428", user=reviewer, reason="same outage")
    page = client.get("/cases/IL-0428").content.decode()
    assert merged_line(page) == (
        "Merged into this case as duplicates: IL-0429 (its history), IL-0431 (its history)."
        " Their ids lead here."
    )
    assert '<a href="/cases/IL-0429/history">its history</a>' in page
    assert '<a href="/cases/IL-0431/history">its history</a>' in page
    # The same list as the history's (and the API history's `merged_from`).
    kept = selectors.case_by_id("IL-0428")
    assert kept is not None and selectors.merged_from(kept) == ["IL-0429", "IL-0431"]
    history = client.get("/api/cases/IL-0428/history").json()
    assert [merged["id"] for merged in history["merged_from"]] == ["IL-0429", "IL-0431"]
    # The merged ids still lead to the kept case.
    assert client.get("/cases/IL-0431")["Location"] == "/cases/IL-0428"


def test_one_merged_case_is_said_in_the_singular(client, reviewer):
    services.merge_cases("IL-0431", "IL-0428", user=reviewer)
    assert merged_line(client.get("/cases/IL-0428").content.decode()) == (
        "Merged into this case as duplicate: IL-0431 (its history). Their ids lead here."
    )


def test_a_case_nothing_was_merged_into_says_nothing_and_reads_no_more(client, django_assert_num_queries):
    assert merged_line(client.get("/cases/IL-0428").content.decode()) is None
    case = selectors.case_by_id("IL-0428")
    assert case is not None
    with django_assert_num_queries(0):
        assert selectors.merged_from(case) == []
