"""`/sitemap.xml` and `/robots.txt`."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from incidents.models import Case

pytestmark = pytest.mark.django_db
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def test_the_sitemap_lists_pages_cases_topics_and_terms(client):
    response = client.get("/sitemap.xml")
    assert response.status_code == 200
    urls = {u.find(f"{SM}loc").text: u for u in ET.fromstring(response.content).findall(f"{SM}url")}
    base = "http://testserver"
    for path in (
        "/",
        "/cases/",
        "/topics/",
        "/vocab/",
        "/stats",
        "/topics/interconnect",
        "/vocab/symptom/nccl-timeout",
        "/vocab/root-cause/hardware-fault",
    ):
        assert base + path in urls, path
    for case_id in Case.objects.published().values_list("id", flat=True):
        assert f"{base}/cases/{case_id}" in urls
    assert urls[f"{base}/cases/IL-0428"].find(f"{SM}lastmod") is not None


def test_robots_allows_pages_keeps_crawlers_off_search_combinations_and_names_the_sitemap(client):
    response = client.get("/robots.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode().splitlines() == [
        "User-agent: *",
        "Disallow: /cases/?",
        "Disallow: /match/",
        "Allow: /",
        "",
        "Sitemap: http://testserver/sitemap.xml",
    ]
