"""The correction form says which field is for what, and each field points at its help.

One form takes a new case and a correction. Opened as a correction from a case page it
showed Organization, Date of the source, Topic and Root cause with no word of whether a
correction fills them in (or whether "Topic" was the topic to change), and the text field,
"What happened / what is wrong", had no help at all, so nothing said to name the part of
the case that is wrong (a new user's walkthrough). Every field now has help starting with
the kind it is for, and each names that help in `aria-describedby`, as the form's other
fields do."""

from __future__ import annotations

import re
from html import unescape

import pytest

from .html import text_of

pytestmark = pytest.mark.django_db

# Field name -> the start of its help: the kind it is for first.
HELP_STARTS = {
    "case_id": "Correction only: the id at the top of the case page",
    "title": "New case (needed): what broke",
    "organization": "New case only:",
    "published": "New case only:",
    "text": "New case: the incident in a few sentences",
    "topic": "New case only: the kind of failure",
    "root_cause": "New case only:",
    "source_urls": "Public accounts",
    "contact": "Optional:",
}


def control(html: str, name: str) -> str:
    """The opening tag of the form control named `name`."""
    found = re.search(rf'<(?:input|textarea|select)\b[^>]*\bname="{name}"[^>]*>', html)
    assert found, f"no control {name}"
    return found.group(0)


def help_of(html: str, name: str) -> str:
    """The text of the element the control `name` names in `aria-describedby`."""
    described = re.search(r'aria-describedby="([^"]+)"', control(html, name))
    assert described, f"{name} points at no help"
    found = re.search(rf'<p class="help" id="{described.group(1)}">(.*?)</p>', html, re.S)
    assert found, f"no help element {described.group(1)}"
    return text_of(found.group(1))


@pytest.fixture
def correction_form(client) -> str:
    return client.get("/propose/", {"case_id": "IL-0428"}).content.decode()


@pytest.mark.parametrize(("name", "start"), HELP_STARTS.items())
def test_each_field_points_at_help_saying_what_it_is_for(correction_form, name, start):
    assert help_of(correction_form, name).startswith(start)


def test_the_text_says_to_name_the_part_of_the_case_that_is_wrong(correction_form):
    label = re.search(r'<label for="id_text">([^<]*)</label>', correction_form).group(1)
    assert unescape(label) == "What happened (new case) or what is wrong (correction)"
    assert (
        "Correction: the part of the case that is wrong (its title, summary, symptoms, root cause, "
        "remediation, a figure, a date or a source), what it says now, what it should say and where "
        "you read that." in help_of(correction_form, "text")
    )
