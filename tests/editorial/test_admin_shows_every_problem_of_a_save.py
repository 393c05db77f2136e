"""A refused admin save shows every problem it has at once: the form's own errors (bad JSON,
an invalid URL in a row) and the problems import's validation finds in the fields that did
validate, not one group a save."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from incidents.history import case_history
from incidents.models import Case

from .conftest import case_change_form
from .test_admin import post

pytestmark = pytest.mark.django_db

CHANGE = "admin:incidents_case_change"


def errors_shown(page: str) -> list[str]:
    lists = re.findall(r'<ul class="errorlist[^"]*"[^>]*>(.*?)</ul>', page, re.S)
    return [
        unescape(re.sub(r"<[^>]+>", "", item)).strip()
        for ul in lists
        for item in re.findall(r"<li>.*?</li>", ul, re.S)
    ]


def test_a_form_error_and_import_problems_are_shown_together(client, editor):
    client.force_login(editor)
    before = Case.objects.get(id="IL-0428")
    data = case_change_form(client, "IL-0428")
    data["title"] = ["Too short"]  # the schema wants at least 10 characters
    data["time_to_detect"] = ["about an hour"]  # an ISO 8601 duration
    data["affected"] = ["not json"]  # the form's own error
    response = post(client, reverse(CHANGE, args=["IL-0428"]), data)
    assert response.status_code == 200
    shown = errors_shown(response.content.decode())
    assert "not valid JSON: Expecting value (line 1, column 1)" in shown
    assert "title: 'Too short' is too short" in shown
    assert any(e.startswith("facts.time_to_detect: 'about an hour' does not match") for e in shown)
    assert "Please correct the errors below." in response.content.decode()
    assert Case.objects.get(id="IL-0428").modified == before.modified
    assert len(case_history("IL-0428")) == 1


def test_a_row_error_and_an_import_problem_are_shown_together(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0428")
    data["title"] = ["Too short"]
    data["sources-0-url"] = ["not a url"]
    shown = errors_shown(post(client, reverse(CHANGE, args=["IL-0428"]), data).content.decode())
    assert "Enter a valid URL." in shown
    assert "title: 'Too short' is too short" in shown


def test_a_field_with_an_error_of_its_own_is_not_checked_again(client, editor):
    client.force_login(editor)
    data = case_change_form(client, "IL-0428")
    data["accelerator_count"] = ["many"]
    shown = errors_shown(post(client, reverse(CHANGE, args=["IL-0428"]), data).content.decode())
    assert shown == ["Enter a whole number."]
