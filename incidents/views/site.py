"""Site-level files: robots.txt and the sitemap sections."""

from __future__ import annotations

from django.contrib.sitemaps import Sitemap
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from incidents import selectors
from incidents.models import Case, Term


@require_GET
def robots_txt(request: HttpRequest) -> HttpResponse:
    """`/robots.txt`: everything may be crawled except the endless combinations of search
    parameters and the log form; names the sitemap by absolute URL."""
    sitemap = request.build_absolute_uri(reverse("sitemap"))
    lines = [
        "User-agent: *",
        "Disallow: /cases/?",
        "Disallow: /match/",
        "Allow: /",
        "",
        f"Sitemap: {sitemap}",
        "",
    ]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")


class PagesSitemap(Sitemap):
    """The fixed pages."""

    changefreq = "daily"

    def items(self) -> list[str]:
        return [
            "incidents:home",
            "incidents:case-list",
            "incidents:topic-list",
            "incidents:vocab-index",
            "incidents:stats",
            "incidents:code-index",
        ]

    def location(self, item: str) -> str:
        return reverse(item)


class CaseSitemap(Sitemap):
    """Every published case, with its last modification."""

    changefreq = "monthly"

    def items(self):
        return selectors.sitemap_cases()

    def lastmod(self, item: Case):
        return item.modified


class TermSitemap(Sitemap):
    """Topic and vocabulary pages of terms that published cases use."""

    changefreq = "weekly"

    def items(self) -> list[Term]:
        return selectors.sitemap_terms()


SITEMAPS = {"pages": PagesSitemap, "cases": CaseSitemap, "terms": TermSitemap}
