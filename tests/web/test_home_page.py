"""`/`: search box with examples, the log box, latest cases, topics, a stats summary."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from incidents.models import Case, Term

from .html import element, links, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def html(client) -> str:
    response = client.get("/")
    assert response.status_code == 200
    return response.content.decode()


def test_it_has_a_labelled_search_box_with_example_queries(html):
    form = element(html, "form", class_="search")
    assert 'action="/cases/"' in form and 'method="get"' in form
    assert '<label for="q">Describe what you see</label>' in form
    examples = links(element(html, "ul", class_="examples-list"))
    assert ("/cases/?q=Xid+79", "Xid 79") in examples
    assert len(examples) >= 5


def test_it_has_a_log_box_that_posts_to_log_matching(html):
    box = element(html, "section", class_="log-box")
    assert 'method="post" action="/match/"' in box
    assert '<label for="log">' in box and '<textarea id="log" name="text"' in box


def test_it_lists_the_latest_cases(html):
    latest = element(html, "section", aria_labelledby="latest-h")
    newest = list(Case.objects.published().order_by("-published", "-id").values_list("id", flat=True)[:5])
    assert re.findall(r'<span class="case-id">(IL-\d+)</span>', latest) == newest


def test_it_lists_topics_with_counts_most_cases_first(html):
    topics = text_of(element(html, "section", aria_labelledby="topics-h"))
    outages = Case.objects.published().filter(term_links__term__slug="inference-outage").count()
    assert f"Inference serving outages {outages} cases" in topics
    # Most cases first: the largest topic before the smallest one that has cases.
    counted = sorted(
        (Case.objects.published().filter(term_links__term=t).count(), t.name)
        for t in Term.objects.filter(facet="topic")
    )
    counted = [(n, name) for n, name in counted if n]
    assert topics.index(counted[-1][1]) < topics.index(counted[0][1])


def test_it_summarises_the_stats(html):
    glance = text_of(element(html, "section", aria_labelledby="glance-h"))
    total = Case.objects.published().count()
    years = Case.objects.published().dates("published", "year")
    assert f"Cases {total}" in glance
    assert f"Published {years.first().year}–{years.last().year}" in glance
    causes = Counter(Case.objects.published().values_list("root_cause_category__name", flat=True))
    (cause, count), (_, runner_up) = causes.most_common(2)
    assert count > runner_up  # one clear most common cause to name
    assert f"Most common root cause {cause} ({count})" in glance


def test_it_has_its_own_title_and_description(html):
    assert "<title>Find the AI-infrastructure incident that looks like yours · incidentlib</title>" in html
    assert f"Search {Case.objects.published().count()} real, publicly documented" in html
