"""Case page: similar cases with reasons apart from related ones, tool URLs, citation, print."""

from __future__ import annotations

import re

import pytest

from incidents.views.citation import bibtex_escape

from .html import element, links, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(client) -> str:
    response = client.get("/cases/IL-0429")
    assert response.status_code == 200
    return response.content.decode()


def test_related_cases_are_the_editors_list(page):
    related = element(page, "section", aria_labelledby="related-h")
    assert "Linked by an editor." in text_of(related)
    assert [href for href, _ in links(related)] == ["/cases/IL-0430", "/cases/IL-0437"]


def test_similar_cases_are_computed_apart_with_their_reasons(page):
    similar = element(page, "section", aria_labelledby="similar-h")
    text = text_of(similar)
    assert "not checked by an editor" in text
    items = re.findall(r'<a class="similar-link" href="(/cases/IL-\d+)">', similar)
    assert 1 <= len(items) <= 5 and "/cases/IL-0429" not in items
    # IL-0444 (Meta RSC hardware failures) shares ECC errors, lost GPUs and the root cause.
    assert "/cases/IL-0444" in items
    # A label people read right, reasons in words, never raw score parts or percentages.
    assert re.search(r"\b(Very similar|Similar|Related)\b", text)
    assert "Both: " in text and "ECC error" in text
    assert "same root cause: hardware fault" in text
    assert "Score:" not in text and not re.search(r"\d+% similar", text)
    assert "Same words" not in text and "Root cause unknown" not in text


def test_the_tools_box_gives_json_similar_and_mcp_urls(page):
    tools = text_of(element(page, "aside", class_="tools"))
    assert "For tools and scripts" in tools
    assert "http://testserver/api/cases/IL-0429" in tools
    assert "http://testserver/api/cases/IL-0429/similar" in tools
    assert "http://testserver/mcp" in tools and 'get_incident with id="IL-0429"' in tools


def test_the_citation_is_bibtex_for_this_case(page):
    cite = element(page, "pre", id="bibtex")
    assert text_of(cite).startswith("@misc{incidentlib-IL-0429,")
    for field in (
        "year = {2022}",
        "month = may",
        "organization = {Meta AI}",
        "url = {http://testserver/cases/IL-0429}",
    ):
        assert field in cite
    assert 'data-copy="bibtex"' in page  # a copy button, shown when scripts run


def test_bibtex_escapes_latex_specials():
    assert bibtex_escape("100% of A&B_c {x} #1") == r"100\% of A\&B\_c \{x\} \#1"


def test_a_print_stylesheet_is_linked_and_served(client, page):
    assert '<link rel="stylesheet" href="/static/css/print.css" media="print">' in page
    response = client.get("/static/css/print.css")
    assert response.status_code == 200
    css = b"".join(response.streaming_content).decode()
    assert ".tools" in css and 'content: " (" attr(href) ")"' in css


def test_tags_link_to_filtered_lists_and_the_category_to_its_page(page):
    assert 'href="/cases/?symptom=ecc-error"' in page
    assert 'href="/vocab/root-cause/hardware-fault"' in page
    assert 'href="/topics/hardware"' in page


def test_the_description_names_organization_year_cause_and_symptoms(page):
    from .html import meta_description

    description = meta_description(page)
    assert "(Meta AI, 2022). Root cause: Hardware fault." in description
    assert "Symptoms: Job interruption, Training job failure, ECC error" in description


def test_a_hand_linked_case_is_listed_once_under_related(client):
    # IL-0463 links IL-0464 by hand, and IL-0464 is also its most similar case.
    page = client.get("/cases/IL-0463").content.decode()
    related = element(page, "section", aria_labelledby="related-h")
    similar = element(page, "section", aria_labelledby="similar-h")
    assert "/cases/IL-0464" in [href for href, _ in links(related)]
    assert "/cases/IL-0464" not in re.findall(r'<a class="similar-link" href="(/cases/IL-\d+)">', similar)
