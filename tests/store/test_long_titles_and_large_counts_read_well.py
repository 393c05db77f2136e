"""A case page's tab title is the title's headline, and the accelerator and node counts are
grouped as the titles write them ("10,000-GPU jobs", so "Accelerator count 10,000", not
10000). Scale-table cells stay as written: an iteration or step number is searched for as
a log prints it."""

from __future__ import annotations

import re
from html import unescape

import pytest

from incidents.case_facts import grouped
from incidents.templatetags.incident_tags import HEADLINE_MAX, short_title
from tests.conftest import load_fixture
from tests.store.test_case_page import section
from tests.web.html import title_of

pytestmark = pytest.mark.django_db


def test_the_tab_title_of_a_long_title_is_its_headline(client):
    title = load_fixture("IL-0579")["title"]
    assert len(title) > 200
    html = client.get("/cases/IL-0579").content.decode()
    assert title_of(html) == (
        "IL-0579: Defective GPUs in ByteDance's MegaScale clusters sometimes blocked inside NCCL "
        "operations · incidentlib"
    )
    # The page itself keeps the whole title.
    h1 = re.search(r"<h1>(.*?)</h1>", html, re.S).group(1)
    assert unescape(re.sub(r"<[^>]+>", "", h1)) == title


def test_a_headline_longer_than_a_tab_is_cut_at_a_word_with_an_ellipsis():
    title = "word " * 60
    short = short_title(title.strip())
    assert short.endswith("word…") and len(short) <= HEADLINE_MAX + 1
    assert short_title("Short title, then the rest") == "Short title"
    # No space to cut at: cut at the limit.
    assert short_title("x" * 150) == "x" * HEADLINE_MAX + "…"


def test_large_counts_are_grouped_on_the_case_page_but_not_in_scale_tables(client):
    assert load_fixture("IL-0579")["environment"]["accelerator_count"] == 10000
    env = section(client.get("/cases/IL-0579").content.decode(), "env-h")
    assert "Accelerator count 10,000" in env
    rows = load_fixture("IL-0467")["scale_tables"][0]["rows"]
    iteration = next(row["values"]["iteration"] for row in rows if row["values"].get("iteration", 0) >= 1000)
    assert f">{iteration}</td>" in client.get("/cases/IL-0467").content.decode()


def test_only_integers_are_grouped():
    assert [grouped(v) for v in (1024, 384, 2.5, "2023-01", True, None)] == [
        "1,024",
        "384",
        2.5,
        "2023-01",
        True,
        None,
    ]
