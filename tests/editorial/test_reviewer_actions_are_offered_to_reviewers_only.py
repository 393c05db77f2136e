"""Publishing, retracting, merging and accepting proposals are offered to reviewers only.

An editor's case page linked "Retract" (and "Merge into another case"), whose form took a
reason and refused only on submit ("only a reviewer may move a case from published to
retracted"), and the case list offered "Publish (reviewers)" (a new user's walkthrough).
An editor now sees none of them, and the retract and merge pages refuse an editor up front,
back on the case page with a message saying who may.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from incidents.models import Case
from incidents.proposals.models import Proposal

pytestmark = pytest.mark.django_db

CASE = "IL-0428"


def change_page(client, user) -> str:
    client.force_login(user)
    return client.get(reverse("admin:incidents_case_change", args=[CASE])).content.decode()


def action_values(client, user, changelist: str) -> list[str]:
    client.force_login(user)
    html = client.get(reverse(changelist)).content.decode()
    select = re.search(r'<select name="action".*?</select>', html, re.S)
    assert select
    return re.findall(r'<option value="([^"]*)"', select.group(0))


def test_an_editor_is_not_offered_retract_or_merge(client, editor):
    html = change_page(client, editor)
    assert reverse("admin:incidents_case_retract", args=[CASE]) not in html
    assert reverse("admin:incidents_case_merge", args=[CASE]) not in html
    assert reverse("admin:incidents_case_preview", args=[CASE]) in html


def test_a_reviewer_is_offered_retract_and_merge(client, reviewer):
    html = change_page(client, reviewer)
    assert f'<a href="{reverse("admin:incidents_case_retract", args=[CASE])}">Retract</a>' in html
    assert reverse("admin:incidents_case_merge", args=[CASE]) in html


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(("view", "title"), [("retract", "Retract"), ("merge", "Merge")])
def test_the_retract_and_merge_pages_refuse_an_editor_up_front(client, editor, method, view, title):
    client.force_login(editor)
    url = reverse(f"admin:incidents_case_{view}", args=[CASE])
    response = getattr(client, method)(url, {"reason": "A duplicate.", "kept": "IL-0429"})
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:incidents_case_change", args=[CASE])
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == [f"{title} needs the reviewer role; ask a reviewer to do it."]
    assert Case.objects.get(id=CASE).status == Case.Status.PUBLISHED


def test_the_retract_page_opens_for_a_reviewer(client, reviewer):
    client.force_login(reviewer)
    response = client.get(reverse("admin:incidents_case_retract", args=[CASE]))
    assert response.status_code == 200
    assert 'name="reason"' in response.content.decode()


def test_publish_is_offered_to_reviewers_only(client, editor, reviewer):
    assert "publish" not in action_values(client, editor, "admin:incidents_case_changelist")
    assert "submit_for_review" in action_values(client, editor, "admin:incidents_case_changelist")
    assert "publish" in action_values(client, reviewer, "admin:incidents_case_changelist")


def test_accepting_a_proposal_is_offered_to_reviewers_only(client, editor, reviewer):
    # The admin shows its actions over a list with rows only.
    Proposal.objects.create(kind=Proposal.Kind.NEW, title="A hang at 512 GPUs", text="It hung.")
    editor_actions = action_values(client, editor, "admin:incidents_proposal_changelist")
    assert "accept" not in editor_actions
    assert {"start_review", "decline"} <= set(editor_actions)
    assert "accept" in action_values(client, reviewer, "admin:incidents_proposal_changelist")
