"""The case admin says what an editor needs in words: a case's status as the workflow names
it, and where to fix what a save refuses.

The add page's Status row showed the model's default, "Published", for a case the save
makes a draft; the list's workflow actions said "IL-0430 is now in_review.", the value
stored; a case saved without a topic was refused with "topics: [] should be non-empty",
with no word that topics are the rows at the foot of the form (an editor's walkthrough of
create, edit and publish).
"""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from incidents.models import Case, Term
from tests.web.html import element, text_of

from .conftest import form_data

pytestmark = pytest.mark.django_db


def row_text(page: str, field: str) -> str:
    """The visible text of the admin form's row of `field`."""
    return text_of(element(page, "div", class_=f"form-row field-{field}"))


def test_the_add_page_says_a_new_case_becomes_a_draft(client, editor):
    client.force_login(editor)
    page = client.get(reverse("admin:incidents_case_add")).content.decode()
    assert row_text(page, "new_case_status") == (
        "Status: Draft once saved: submit it for review from the list of cases; a reviewer publishes it."
    )
    assert 'class="form-row field-status"' not in page


def act_in_the_list(user, action: str, case_id: str) -> list[str]:
    """The messages of `user` applying the list's `action` to `case_id` (a client of its own)."""
    client = Client()
    client.force_login(user)
    url = reverse("admin:incidents_case_changelist")
    response = client.post(url, {"action": action, "_selected_action": [case_id]})
    assert response.status_code == 302
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_workflow_action_names_the_new_status_in_words(editor, reviewer):
    Case.objects.filter(id="IL-0430").update(status=Case.Status.DRAFT)
    assert act_in_the_list(editor, "submit_for_review", "IL-0430") == ["IL-0430 is now in review."]
    published, *warnings = act_in_the_list(reviewer, "publish", "IL-0430")
    assert published == "IL-0430 is now published."
    # IL-0430 cites the OPT-175B logbook as IL-0429 does: Publish warns as an admin save does.
    assert warnings and all(w.startswith("Possible duplicate: IL-0430 looks like ") for w in warnings)
    assert any("IL-0429 (same source URL" in w for w in warnings)


def test_a_case_without_a_topic_is_told_where_topics_are_added(client, editor):
    # The refusal read "topics: [] should be non-empty" above the form, with nothing to
    # say that topics are rows of the inline at the foot of the page.
    client.force_login(editor)
    data = form_data(client.get(reverse("admin:incidents_case_add")).content.decode(), "case_form")
    data.update(
        {
            "title": ["A new case typed into the admin without a topic"],
            "organization": ["Hugging Face"],
            "published": ["2025-01-02"],
            "summary": ["What happened."],
            "symptoms_description": ["Jobs hung."],
            "root_cause_category": [str(Term.objects.get(facet="root_cause", name="Software bug").pk)],
            "sources-0-position": ["0"],
            "sources-0-url": ["https://example.org/new-case"],
        }
    )
    page = client.post(reverse("admin:incidents_case_add"), data).content.decode()
    assert text_of(element(page, "ul", class_="errorlist nonfield")) == (
        "topics: [] should be non-empty (edit them in the rows under "
        "\u201cTopics, symptom tags and components (in order)\u201d)"
    )
    assert not Case.objects.filter(title__startswith="A new case typed").exists()
