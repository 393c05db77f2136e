"""The history page says what each entry did, and a status in words.

A case made from a public proposal showed its version 1 as "Created by an import · public
proposal" (it was no import), its move to review as "status: in_review · status in_review"
and the diff's status as `draft` -> `in_review` (a new user's walkthrough).
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from incidents.proposals import services
from incidents.proposals.models import Proposal

from .conftest import write_symptoms
from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]


def meta_lines(html: str) -> list[str]:
    """Each history entry's line (`<p class="meta">`) as text, newest first."""
    return [
        re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", line))).strip()
        for line in re.findall(r'<p class="meta">(.*?)</p>', html, re.S)
    ]


@pytest.fixture
def accepted(client, editor, reviewer) -> str:
    assert form_post(client).status_code == 302
    proposal = Proposal.objects.get()
    services.start_review(proposal, user=editor)
    write_symptoms(client, reviewer, proposal.case_id)
    services.accept(proposal, user=reviewer)
    assert proposal.case_id is not None
    return proposal.case_id


def test_each_entry_says_what_happened_and_who_did_it(client, accepted):
    html = client.get(reverse("incidents:case-history", args=[accepted])).content.decode()
    assert meta_lines(html) == [
        # Newest first.
        "Proposal accepted by rita · proposal accepted · status Published",
        "Changed by rita · admin edit · status In review",  # wrote what operators saw, to publish it
        "Changed by edna · status In review",
        "Created from a public proposal · public proposal · status Draft",
    ]


def test_the_status_diff_is_in_words(client, accepted):
    html = client.get(reverse("incidents:case-history", args=[accepted])).content.decode()
    rows = re.findall(r"<th scope=\"row\"><code>status</code></th><td>([^<]*)</td><td>([^<]*)</td>", html)
    # Published, In review, and version 1's own status (from nothing).
    assert rows == [("In review", "Published"), ("Draft", "In review"), ("—", "Draft")]


def test_an_import_is_still_said_to_be_one(client):
    html = client.get(reverse("incidents:case-history", args=["IL-0428"])).content.decode()
    assert meta_lines(html) == ["Created by an import · import · status Published"]
