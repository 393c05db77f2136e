"""A retraction reason typed without a final full stop ends its sentence on the case page.

The walk (W16) retracted IL-0432 with "Source misread: the slow GPU figure is from a
different run" and read "... from a different run It stays here so links keep working".
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import Case
from incidents.rendering import as_sentence

pytestmark = pytest.mark.django_db


def notice(client, case_id: str) -> str:
    page = client.get(reverse("incidents:case-detail", args=[case_id])).content.decode()
    [text] = re.findall(r'<div class="notice retracted" role="note"><p>(.*?)</p></div>', page, re.S)
    return re.sub(r"<[^>]+>", "", text)


@pytest.mark.parametrize(
    ("reason", "shown"),
    [
        (
            "Source misread: the slow GPU figure is from a different run",
            "Source misread: the slow GPU figure is from a different run.",
        ),
        ("Duplicate of IL-0431.", "Duplicate of IL-0431."),
        ("Is this the same run?", "Is this the same run?"),
    ],
)
def test_the_reason_is_a_sentence_of_its_own(client, reviewer, reason, shown):
    services.change_status("IL-0432", Case.Status.RETRACTED, user=reviewer, reason=reason)
    assert notice(client, "IL-0432") == (
        f"This case was retracted. {shown} It stays here so links keep working, but it is left out "
        "of lists, search, feeds and statistics."
    )


def test_as_sentence_collapses_spaces_and_keeps_nothing_as_nothing():
    assert as_sentence("  two\n lines ") == "two lines."
    assert as_sentence("") == as_sentence(None) == ""
