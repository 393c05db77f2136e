"""`next` and `previous` links leave out the parameters given empty: a blank value means "not
given" at every door (`selectors.is_blank`), so a link carrying `q=` on would only repeat
noise (a walkthrough browsing `/api/cases/?q=` found it in every `next`). The values given
are kept as they were, and the page's own links already left blanks out."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_case_list_links_leave_out_blank_parameters(client):
    body = client.get("/api/cases/?q=&topic=&sort=newest&page_size=5").json()
    assert body["next"] == "http://testserver/api/cases/?page=2&page_size=5&sort=newest"
    body = client.get(body["next"] + "&q=+").json()
    assert body["previous"] == "http://testserver/api/cases/?page_size=5&sort=newest"
    assert body["next"] == "http://testserver/api/cases/?page=3&page_size=5&sort=newest"


def test_repeated_values_are_kept_and_only_the_blank_ones_go(client):
    body = client.get("/api/cases/?topic=training-hang&topic=&topic=interconnect&page_size=2").json()
    assert body["next"] == (
        "http://testserver/api/cases/?page=2&page_size=2&topic=training-hang&topic=interconnect"
    )


def test_the_change_feed_links_leave_out_blank_parameters(client):
    body = client.get("/api/changes?since=&limit=3").json()
    assert re.fullmatch(r"http://testserver/api/changes\?cursor=[\w=-]+&limit=3", body["next"]), body["next"]


def test_the_page_leaves_them_out_too(client):
    page = client.get("/cases/?q=&sort=newest").content.decode()
    assert 'rel="next" href="/cases/?sort=newest&amp;page=2"' in page
