"""`/topics/` and `/topics/<slug>`."""

from __future__ import annotations

import pytest

from incidents.models import Case, Term

from .html import element, link_to, links, text_of, title_of

pytestmark = pytest.mark.django_db


def in_topic(slug: str):
    return Case.objects.published().filter(term_links__term__slug=slug, term_links__term__facet="topic")


def test_the_topic_list_shows_every_topic_with_its_case_count(client):
    html = client.get("/topics/").content.decode()
    text = text_of(html)
    for topic in Term.objects.filter(facet="topic"):
        assert f"{topic.name} {in_topic(topic.slug).count()} case" in text
        assert topic.description in text
        assert f'href="/topics/{topic.slug}"' in html
    assert title_of(html) == "Topics · incidentlib"


def test_a_topic_page_shows_description_counts_cooccurring_terms_and_latest_cases(client):
    html = client.get("/topics/checkpoint-storage").content.decode()
    topic = Term.objects.get(facet="topic", slug="checkpoint-storage")
    assert f"<h1>{topic.name}</h1>" in html
    assert topic.description in text_of(html)
    count = in_topic("checkpoint-storage").count()
    assert link_to(html, f"All {count} case") == "/cases/?topic=checkpoint-storage"
    symptoms = element(html, "section", aria_labelledby="g1-h")
    assert "Most frequent symptoms" in text_of(symptoms)
    # Each frequent term links the case list narrowed to the topic and that term.
    assert all(href.startswith("/cases/?topic=checkpoint-storage&symptom=") for href, _ in links(symptoms))
    checkpoint = (
        Case.objects.published()
        .filter(term_links__term__slug="checkpoint-storage")
        .filter(term_links__term__slug="checkpoint-failure")
        .count()
    )
    assert f"Checkpoint failure {checkpoint} case" in text_of(symptoms)
    latest = element(html, "section", aria_labelledby="latest-h")
    newest = in_topic("checkpoint-storage").order_by("-published", "-id").first()
    assert newest.id in latest


def test_a_topic_page_links_its_feed_and_json_twin(client):
    response = client.get("/topics/interconnect")
    html = response.content.decode()
    assert (
        '<link rel="alternate" type="application/atom+xml" title="Cases about Interconnect faults" '
        'href="/feeds/topics/interconnect.atom">'
    ) in html
    assert response["Link"] == '</api/topics/interconnect>; rel="alternate"; type="application/json"'


def test_synonyms_are_shown_when_the_topic_has_them(client):
    topic = Term.objects.filter(facet="topic").exclude(synonyms=[]).first()
    if topic is None:
        pytest.skip("no topic with synonyms in the vocabulary")
    assert f"Also called: {', '.join(topic.synonyms)}" in text_of(
        client.get(f"/topics/{topic.slug}").content.decode()
    )


def test_an_unknown_topic_is_404(client):
    assert client.get("/topics/no-such-topic").status_code == 404
