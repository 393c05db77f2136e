"""Helpful errors on the pages: ids redirect, 404s suggest, bad list parameters are shown."""

from __future__ import annotations

import re

import pytest

from .html import element, links, text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("spelling", ["428", "il428", "IL0428", "il-0428", "0428"])
def test_other_spellings_of_an_id_redirect_to_the_canonical_page(client, spelling):
    response = client.get(f"/cases/{spelling}")
    assert (response.status_code, response["Location"]) == (301, "/cases/IL-0428")


def test_an_unknown_id_suggests_the_closest_ids_first_the_one_digit_typo(client):
    response = client.get("/cases/IL-9428")
    assert response.status_code == 404
    html = response.content.decode()
    hrefs = [href for href, _ in links(html) if re.fullmatch(r"/cases/IL-\d+", href)]
    assert hrefs[0] == "/cases/IL-0428"
    assert "Closest case ids" in text_of(html)


def test_an_unknown_id_that_is_a_term_suggests_the_term(client):
    response = client.get("/cases/nccl-timeout")
    assert response.status_code == 404
    assert ("/vocab/symptom/nccl-timeout", "NCCL timeout") in links(response.content.decode())
    assert ("/cases/?q=nccl-timeout", "Search the cases for it") in links(response.content.decode())


def test_topics_redirect_from_their_name_and_suggest_when_unknown(client):
    assert client.get("/topics/Interconnect")["Location"] == "/topics/interconnect"
    assert client.get("/topics/networking")["Location"] == "/topics/interconnect"
    # A name with a space was the bare "Nothing lives at" 404 (the URL took slug characters only).
    response = client.get("/topics/Interconnect%20faults")
    assert (response.status_code, response["Location"]) == (301, "/topics/interconnect")
    response = client.get("/topics/interconect")
    assert response.status_code == 404
    assert ("/topics/interconnect", "Interconnect faults") in links(response.content.decode())
    response = client.get("/topics/interconect%20fault")
    assert response.status_code == 404
    assert "No topic called “interconect fault”. Did you mean Interconnect faults?" in text_of(
        response.content.decode()
    )


def test_an_unknown_term_shows_a_notice_with_a_did_you_mean_link(client):
    response = client.get("/cases/?symptom=NCCL+timout&topic=interconnect")
    assert response.status_code == 200
    notice = element(response.content.decode(), "div", class_="note notice")
    assert "No symptom called “NCCL timout”. Did you mean NCCL timeout" in text_of(notice)
    assert ("/cases/?topic=interconnect&symptom=nccl-timeout", "NCCL timeout") in links(notice)


def test_a_name_or_synonym_filters_like_the_slug_and_links_use_the_slug(client):
    by_name = client.get("/cases/?symptom=NCCL+timeout").content.decode()
    by_slug = client.get("/cases/?symptom=nccl-timeout").content.decode()
    assert 'class="note notice"' not in by_name
    chips = element(by_name, "ul", class_="chips")
    assert ("/cases/", "Remove filter Symptom: NCCL timeout ×") in links(chips)
    ids = re.findall(r'<span class="case-id">(IL-\d+)</span>', by_name)
    assert ids and ids == re.findall(r'<span class="case-id">(IL-\d+)</span>', by_slug)


def test_bad_year_sort_and_page_are_each_named(client):
    response = client.get("/cases/?year=abc&sort=weird&page=zero")
    assert response.status_code == 200
    notice = text_of(element(response.content.decode(), "div", class_="note notice"))
    assert "Year: must be a year between 1990 and 2100 (given “abc”)." in notice
    assert "Sort: must be one of relevance, newest, oldest (given “weird”)." in notice
    assert "Page: must be a whole number (given “zero”)." in notice


@pytest.mark.parametrize("page", ["0", "-1", "zero"])
def test_a_bad_page_is_worded_as_the_api_words_it(client, page):
    # `page=0` was "must be a whole number from 1" here and "must be between 1 and 100000" in
    # the API (a new user's walkthrough); one rule now, `selectors.integer_detail`.
    [error] = client.get("/api/cases/", {"page": page}).json()["errors"]
    response = client.get("/cases/", {"page": page, "q": "nccl"})
    notice = text_of(element(response.content.decode(), "div", class_="note notice"))
    assert f"Page: {error['detail']} (given “{page}”)." in notice


def test_a_date_range_filters_and_shows_as_chips(client):
    html = client.get("/cases/?published_after=2024-01-01&published_before=2024-12-31").content.decode()
    chips = element(html, "ul", class_="chips")
    assert "Published after: 2024-01-01" in text_of(chips)
    assert ("/cases/?published_before=2024-12-31", "Remove filter Published after: 2024-01-01 ×") in links(
        chips
    )


def test_the_closest_ids_of_an_unknown_id_come_with_their_titles(client):
    """Bare ids (IL-0637, IL-0635, IL-0634 for IL-9999) were no useful suggestion. The title
    is shown from its start, cut at 100 characters: its headline alone read "IL-0637 On
    Slurm" (the title opens with "On Slurm, SkyPilot tasks run ...")."""
    from html import unescape

    from django.utils.text import Truncator

    from incidents.models import Case

    html = client.get("/cases/IL-9999").content.decode()
    items = re.findall(r'<li><a href="/cases/(IL-\d+)">IL-\d+</a> ([^<]+)</li>', html)
    assert len(items) == 3
    shown = [unescape(title) for _, title in items]
    assert shown == [Truncator(Case.objects.get(id=case_id).title).chars(100) for case_id, _ in items]
    assert all(len(title) > 20 and len(title) <= 100 for title in shown)
