"""`/topics/` and `/topics/<slug>`."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from incidents import selectors

from .common import not_found_page, render_page, unknown_term_page

TOP_TERMS = 8
LATEST_SHOWN = 10


def topic_list(request: HttpRequest) -> HttpResponse:
    """`/topics/`: every topic with its description and number of published cases.

    Data: `selectors.vocabulary("topic")` (one query).
    """
    topics = selectors.vocabulary("topic")
    topics.sort(key=lambda t: (-t.case_count, t.name))
    return render_page(
        request, "incidents/topic_list.html", {"topics": topics}, json_url=reverse("api:topic-list")
    )


def unknown_topic_page(request: HttpRequest, slug: str, lookup: selectors.TopicLookup) -> HttpResponse:
    """The 404 page of a `slug` naming no topic (`lookup`, `find_topic`'s answer for it), for
    `/topics/<slug>` and its feed: the sentence the API and MCP say (`TopicLookup.problem`)
    with the closest topics; a former topic (`training`) says it is a workload now, linking
    the workload (`TopicLookup.moved`)."""
    if lookup.workload is not None:
        notice = f"{lookup.moved(slug)}."
        return not_found_page(request, what=notice, text=slug, topics=[lookup.workload], notice=notice)
    return unknown_term_page(request, slug, lookup)


def topic_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """`/topics/<slug>`: description, synonyms, case count, the symptoms, root causes and
    components most frequent within the topic (each linking the case list narrowed to both),
    and the latest cases. A topic named by its name or a synonym (`/topics/Training`,
    `/topics/networking`) redirects permanently to its slug, a former topic that is now a
    workload (`/topics/training`) to the workload's page; an unknown one gives a 404 page
    naming the closest topics. Data: `selectors.find_topic`, `selectors.topic_overview`.
    """
    lookup = selectors.find_topic(slug)
    if lookup.canonical_slug is not None:
        return redirect("incidents:topic-detail", slug=lookup.canonical_slug, permanent=True)
    if lookup.workload is not None:
        return redirect(lookup.workload.get_absolute_url(), permanent=True)
    if lookup.term is None:
        return unknown_topic_page(request, slug, lookup)
    overview = selectors.topic_overview(lookup.term, top=TOP_TERMS, latest=LATEST_SHOWN)
    assert overview is not None
    in_topic = f"{reverse('incidents:case-list')}?topic={overview.topic.slug}"
    groups = [
        ("Most frequent symptoms", "symptom", overview.top_symptoms),
        ("Most frequent root causes", "root_cause", overview.top_root_causes),
        ("Most frequent components", "component", overview.top_components),
    ]
    return render_page(
        request,
        "incidents/topic_detail.html",
        {
            "overview": overview,
            "topic": overview.topic,
            "groups": [
                (title, [(term, n, f"{in_topic}&{facet}={term.slug}") for term, n in pairs])
                for title, facet, pairs in groups
            ],
            "all_url": in_topic,
            "feed_url": reverse("incidents:feed-topic", args=[overview.topic.slug]),
        },
        json_url=reverse("api:topic-detail", args=[overview.topic.slug]),
    )
