"""/codes/<slug>: "What it turned out to be" counts each cause as every other count list
does (the count set apart at the right, no detached colon: it read "Hardware fault
............ : 1 of 2"), and the checks the cases name carry no ☐, which looked like a
checkbox to tick."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from .html import element, text_of

pytestmark = pytest.mark.django_db


def test_each_cause_is_a_link_and_a_count_with_no_colon(client):
    html = client.get("/codes/xid-79").content.decode()
    causes = element(html, "ul", class_="count-list")
    rows = re.findall(r"<li>(.*?)</li>", causes)
    assert rows
    count = r'<span class="count">\d+ of \d+<span class="sr-only"> cases?</span></span>'
    for row in rows:
        assert re.fullmatch(rf'<a href="/[^"]+">[^<]+</a> {count}', row), row
    assert ":" not in text_of(causes)


def test_the_checks_marker_is_no_checkbox():
    response: Any = Client().get("/static/css/site.css")  # streamed (the stubs know only HttpResponse)
    css = b"".join(response.streaming_content).decode()
    response.close()
    [marker] = re.findall(r"\.checklist li::marker \{ content: \"([^\"]*)\"; \}", css)
    assert "☐" not in marker and marker.strip() == "→"
