"""The proposal form is reachable from the site, and says when it comes back refused.

Nothing linked to /propose/ (the README sends readers there): every page's footer now has
"Propose a case", and each published case page "Propose a correction", opening the form as
a correction of that case. A refused form kept the plain title and no summary of its
errors: it now opens with an error summary that takes the focus, and a title starting
"Error:" (the GOV.UK pattern)."""

from __future__ import annotations

import re

import pytest

from incidents.models import Case
from incidents.selectors import find_published_case

from .html import element, links, text_of

pytestmark = pytest.mark.django_db


def title_of(html: str) -> str:
    return text_of(element(html, "title"))


@pytest.mark.parametrize("path", ["/", "/cases/IL-0428", "/topics/", "/stats"])
def test_every_page_links_the_form_in_its_footer(client, path):
    footer = element(client.get(path).content.decode(), "footer", class_="site")
    assert ("/propose/", "Propose a case") in links(footer)


def test_a_case_page_links_a_correction_of_that_case(client):
    html = client.get("/cases/IL-0428").content.decode()
    assert ("/propose/?case_id=IL-0428", "Propose a correction") in links(element(html, "main"))


def test_a_retracted_case_offers_no_correction(client):
    # The form corrects published cases only: the link would lead to a refusal.
    Case.objects.filter(id="IL-0429").update(status=Case.Status.RETRACTED)
    html = client.get("/cases/IL-0429").content.decode()
    assert not [href for href, _ in links(html) if href.startswith("/propose/?")]


def test_the_link_opens_the_form_as_a_correction_of_that_case(client):
    html = client.get("/propose/?case_id=IL-0428").content.decode()
    assert re.search(r'<input type="text" name="case_id" value="IL-0428"', html)
    assert re.search(r'<input type="radio" name="kind" value="correction"[^>]* checked', html)
    assert not re.search(r'<input type="radio" name="kind" value="new"[^>]* checked', html)


@pytest.mark.parametrize("value", ["IL-0428" * 3, "IL-04\x0128", ""])
def test_a_value_no_id_could_be_is_not_prefilled(client, value):
    html = client.get("/propose/", {"case_id": value}).content.decode()
    assert not re.search(r'name="case_id"[^>]* value=', html)
    assert re.search(r'<input type="radio" name="kind" value="new"[^>]* checked', html)


def test_a_form_without_errors_has_no_summary_and_a_plain_title(client):
    html = client.get("/propose/").content.decode()
    assert title_of(html) == "Propose a case or a correction · incidentlib"
    assert 'id="error-summary"' not in html


def test_a_refused_form_opens_with_a_focused_error_summary_and_an_error_title(client):
    closest = find_published_case("IL-9999").closest
    assert len(closest) == 3
    response = client.post("/propose/", {"kind": "correction", "case_id": "IL-9999", "title": "short"})
    assert response.status_code == 400
    html = response.content.decode()
    assert title_of(html) == "Error: Propose a case or a correction · incidentlib"
    summary = element(html, "div", id="error-summary")
    opening = summary[: summary.index(">") + 1]
    assert 'role="alert"' in opening and 'tabindex="-1"' in opening and " autofocus" in opening
    assert text_of(element(summary, "h2")) == "There is a problem"
    assert links(summary) == [
        ("#id_case_id", f"Case to correct: no published case IL-9999. Did you mean {', '.join(closest)}?"),
        ("#id_title", "Title: must be at least 10 characters long; it has 5"),
        ("#id_text", "What happened (new case) or what is wrong (correction): is required"),
    ]  # a correction needs no source URL


def test_the_page_words_each_error_as_the_api_does(client):
    # Django's sentences ("Ensure this value has at least 10 characters (it has 5).") beside
    # the API's phrases for the same fields (`POST /api/proposals/`): one wording now.
    sent = {"kind": "new", "title": "short", "text": "", "contact": "nope", "source_urls": ""}
    sent["published"] = ""
    html = client.post("/propose/", sent).content.decode()
    assert [text for _, text in links(element(html, "div", id="error-summary"))] == [
        "Title: must be at least 10 characters long; it has 5",
        "Organization: needed for a new case",
        "Date of the source: needed for a new case",
        "What happened (new case) or what is wrong (correction): must not be empty",
        "Topic: needed for a new case",
        "Source URLs: give at least one public source URL",
        "Contact: must be an e-mail address such as name@example.org",
    ]
    shown = element(html, "div", id="field-title")
    assert text_of(element(shown, "div", class_="errors")) == "must be at least 10 characters long; it has 5"
