"""Atom feeds: every case, the cases of one topic, of one symptom tag, of one error code.

A feed follows what the library adds: its entries are the `FEED_LENGTH` published cases
most recently added here (`Case.added`: when a case was first published in this library),
newest first, so a case added today shows at the top even when its source is years old.
Each entry's `published` is that time and its `updated` the case's last change
(`Case.modified`); the date of the case's source (`Case.published`) is in its summary."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.utils.html import format_html

from incidents import selectors
from incidents.models import Case, Facet, Term
from incidents.rendering import render_markdown

from .common import unknown_term_page
from .topics import unknown_topic_page

FEED_LENGTH = 50


class CaseEntriesFeed(Feed):
    """How every feed writes its entries: one Atom entry per case (summary as HTML)."""

    feed_type = Atom1Feed

    def item_title(self, item: Case) -> str:
        return f"{item.id}: {item.title}"

    def item_description(self, item: Case) -> str:
        source = format_html("<p>Source dated {}.</p>", item.published.isoformat())
        return source + render_markdown(item.summary)

    def item_link(self, item: Case) -> str:
        return item.get_absolute_url()

    def item_guid(self, item: Case) -> str:
        # Atom ids must be absolute IRIs; a tag URI stays the same whatever host serves the feed.
        return f"tag:incidentlib,2026:{item.id}"

    def item_pubdate(self, item: Case) -> datetime:
        # When the library added it, not the source's date (module docstring).
        return item.added or item.modified

    def item_updateddate(self, item: Case) -> datetime:
        return item.modified

    def item_author_name(self, item: Case) -> str:
        return item.organization

    def item_categories(self, item: Case) -> list[str]:
        return [t.name for t in (*item.topics, *item.symptom_tags)]


class AllCasesFeed(CaseEntriesFeed):
    """`/feeds/cases.atom`: the `FEED_LENGTH` cases most recently added (summary as HTML)."""

    title = "incidentlib: new incident cases"
    subtitle = (
        "Structured post-incident cases about AI and ML infrastructure, latest added to the library first."
    )

    def link(self) -> str:
        return reverse("incidents:case-list")

    def feed_url(self) -> str:
        return reverse("incidents:feed-all")

    def items(self) -> list[Case]:
        return selectors.feed_cases(limit=FEED_LENGTH)


class TermFeed(CaseEntriesFeed):
    """Cases using one term of `facet`. A slug naming no term is answered by `missing`, not
    with the site's general 404, which told how case ids look."""

    facet: str = ""

    def __call__(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return super().__call__(request, *args, **kwargs)
        except Http404:
            return self.missing(request, kwargs["slug"])

    def missing(self, request: HttpRequest, slug: str) -> HttpResponse:
        """The answer of a feed whose slug is no term's (`selectors.find_facet_term`): the
        term's name or a synonym redirects (301) to its feed, as its page redirects to the
        slug; anything else is a 404 saying so with the closest terms (`No symptom called
        “trainig-hang”. Did you mean Training hang?`, `common.unknown_term_page`)."""
        lookup = selectors.find_facet_term(self.facet, slug)
        if lookup.term is not None and lookup.canonical_slug is not None:
            return HttpResponsePermanentRedirect(self.feed_url(lookup.term))
        return unknown_term_page(request, slug, lookup)

    def get_object(self, request: HttpRequest, slug: str) -> Term:
        term = selectors.term_by_slug(self.facet, slug)
        if term is None:
            raise Http404(f"No {self.facet} {slug}")
        return term

    def title(self, obj: Term) -> str:
        return f"incidentlib: cases about {obj.name}"

    def subtitle(self, obj: Term) -> str:
        return obj.description

    def link(self, obj: Term) -> str:
        return obj.get_absolute_url()

    def items(self, obj: Term) -> list[Case]:
        return selectors.feed_cases(obj, limit=FEED_LENGTH)


class TopicFeed(TermFeed):
    """`/feeds/topics/<slug>.atom`: the cases of one topic latest added. A slug naming no
    topic is answered as `/topics/<slug>` answers it (`topic_feed_missing`)."""

    facet = Facet.TOPIC

    def missing(self, request: HttpRequest, slug: str) -> HttpResponse:
        return topic_feed_missing(request, slug)

    def feed_url(self, obj: Term) -> str:
        return reverse("incidents:feed-topic", args=[obj.slug])


def topic_feed_missing(request: HttpRequest, slug: str) -> HttpResponse:
    """The answer of a topic feed whose slug is no topic's (`selectors.find_topic`): its
    name or a synonym redirects (301) to the topic's feed, as `/topics/<slug>` redirects to
    the slug; anything else is the topic page's 404 (`topics.unknown_topic_page`: the
    closest topics, or for a former topic the workload it is now)."""
    lookup = selectors.find_topic(slug)
    if lookup.canonical_slug is not None:
        return redirect("incidents:feed-topic", slug=lookup.canonical_slug, permanent=True)
    return unknown_topic_page(request, slug, lookup)


class SymptomFeed(TermFeed):
    """`/feeds/symptoms/<slug>.atom`: the cases carrying one symptom tag latest added."""

    facet = Facet.SYMPTOM

    def title(self, obj: Term) -> str:
        return f"incidentlib: cases with the symptom {obj.name}"

    def feed_url(self, obj: Term) -> str:
        return reverse("incidents:feed-symptom", args=[obj.slug])


class ErrorCodeFeed(TermFeed):
    """`/feeds/codes/<slug>.atom`: the cases that showed one error code latest added."""

    facet = Facet.ERROR_CODE

    def title(self, obj: Term) -> str:
        return f"incidentlib: cases that showed {obj.name}"

    def feed_url(self, obj: Term) -> str:
        return reverse("incidents:feed-code", args=[obj.slug])
