"""The history page shows a changed list or object as a reader writes it (`training-hang,
interconnect`; one bullet a source), never as Python's repr (`['training-hang', ...]`)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import services
from incidents.templatetags.incident_tags import history_value
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def test_values_become_text():
    assert history_value(["training-hang", "interconnect"]) == "training-hang, interconnect"
    assert history_value({"nodes": 48, "accelerators": None, "exact": True}) == "exact: yes; nodes: 48"
    assert history_value([{"title": "A <b>post</b>", "url": "https://example.org/a"}]) == (
        '<ul class="history-list"><li>title: A &lt;b&gt;post&lt;/b&gt;; url: https://example.org/a</li></ul>'
    )
    empty: list[object] = [None, "", [], {}]
    assert [history_value(v) for v in empty] == ["—"] * 4
    assert history_value("a <script>") == "a &lt;script&gt;"


def test_the_history_page_shows_topics_and_sources_as_text(client, editor):
    document = load_fixture("IL-0428")
    document["topics"] = ["training-hang"]
    document["sources"].append({"title": "A second account", "url": "https://example.org/second"})
    services.save_case_document(document, user=editor, reason="one topic, a second source")
    page = client.get(reverse("incidents:case-history", args=["IL-0428"])).content.decode()
    assert "[&#x27;" not in page and "{&#x27;" not in page  # no repr of a list or a dict
    assert (
        '<tr><th scope="row"><code>topics</code></th><td>training-hang, interconnect</td>'
        "<td>training-hang</td></tr>"
    ) in page
    assert "<li>title: A second account; url: https://example.org/second</li></ul>" in page
