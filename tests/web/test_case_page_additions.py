"""Case page: similar cases with reasons apart from related ones, tool URLs, citation, print."""

from __future__ import annotations

import re

import pytest

from incidents.views.citation import bibtex_escape

from .html import element, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(client) -> str:
    response = client.get("/cases/IL-0429")
    assert response.status_code == 200
    return response.content.decode()


def test_related_cases_are_the_editors_list_first(page):
    related = element(page, "section", aria_labelledby="related-h")
    entries = re.findall(r'<li>\s*<a class="similar-link" href="(/cases/IL-\d+)">.*?</li>', related, re.S)
    metas = re.findall(r'<p class="similar-meta">(.*?)</p>', related)
    marked = [href for href, meta in zip(entries, metas, strict=True) if "linked by an editor" in meta]
    assert marked == ["/cases/IL-0430", "/cases/IL-0437"]
    assert entries[:2] == marked


def test_similar_cases_follow_with_reasons_in_words_and_each_case_shows_once(page):
    section = element(page, "section", aria_labelledby="related-h")
    text = text_of(section)
    assert "not checked by an editor" in text
    assert element(page, "h2", id="related-h")  # one section: no separate "Similar cases" list
    assert 'id="similar-h"' not in page
    items = re.findall(r'<a class="similar-link" href="(/cases/IL-\d+)">', section)
    assert len(items) == len(set(items)), "a case is listed twice"
    computed = items[2:]
    assert 1 <= len(computed) <= 5 and "/cases/IL-0429" not in items
    # IL-0444 (Meta RSC hardware failures) shares lost GPUs, lost nodes and the root cause.
    assert "/cases/IL-0444" in computed
    # Reasons as incidents.search words them: shared terms, then the same kind of root cause,
    # each list item starting with a capital letter.
    assert "Both: " in text and "GPU unavailable" in text and "Node NotReady" in text
    assert "<li>Same kind of root cause: hardware fault</li>" in section
    assert "<li>same " not in section
    assert "Root cause unknown" not in text
    # No raw score parts or bare percentages, no raw word stems.
    assert "Score:" not in text and "vocabulary 0." not in text
    assert not re.search(r"\d+% similar", text)
    assert "Same words:" not in text


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
        "organization = {Meta}",  # the reviewed library's one name for Meta AI, FAIR, Facebook
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
    assert 'href="/topics/gpu-errors"' in page


def test_the_description_names_organization_year_cause_and_symptoms(page):
    from .html import meta_description

    description = meta_description(page)
    assert "(Meta, 2022). Root cause: Hardware fault." in description
    assert "Symptoms: Job interruption, Training job failure, ECC error" in description


def test_a_hand_linked_case_that_is_also_similar_is_listed_once(client):
    # IL-0463 links IL-0464 by hand, and IL-0464 is also one of its two most similar cases.
    page = client.get("/cases/IL-0463").content.decode()
    section = element(page, "section", aria_labelledby="related-h")
    items = re.findall(r'<a class="similar-link" href="(/cases/IL-\d+)">', section)
    assert items.count("/cases/IL-0464") == 1


def test_the_date_of_the_public_account_reads_as_reported_not_published(page):
    # "published 14 July 2022" beside a library whose feed calls the day a case was added
    # here `published` read as the day this library published it.
    meta = text_of(re.search(r'<p class="meta">(.*?)</p>', page, re.S).group(1))
    assert re.search(r"· reported \d{1,2} \w+ \d{4}", meta), meta
    assert "published" not in meta
