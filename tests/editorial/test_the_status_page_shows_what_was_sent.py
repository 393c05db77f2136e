"""A proposal's private status page shows what was sent (its text and sources), so the
proposer can check it: it showed the title alone. The contact address stays unshown."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from .test_proposals import NEW

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]


def test_the_text_and_sources_sent_are_on_the_status_page(client):
    sent = {
        **NEW,
        "text": "Writes blocked every rank.\nThe job lost an hour.",
        "source_urls": ["https://example.org/a", "https://example.org/b"],
        "contact": "me@example.org",
    }
    answer = APIClient().post(reverse("api:proposal-create"), sent, format="json")
    assert answer.status_code == 201
    page = client.get(answer.json()["status_url"]).content.decode()
    assert '<div class="proposal-text">Writes blocked every rank.\nThe job lost an hour.</div>' in page
    for url in sent["source_urls"]:
        assert f'<li><a href="{url}" rel="nofollow noopener">{url}</a></li>' in page
    assert "me@example.org" not in page
