"""Declining a proposal without a reason names the field to write it in.

The admin's decline reads the reason from the proposal's "Decline reason" field; declined
without one, it said only "...: say why the proposal is declined", leaving the editor to
guess where (a new user's walkthrough).
"""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from incidents.proposals.models import Proposal

pytestmark = pytest.mark.django_db


def test_the_message_names_the_decline_reason_field(client, editor):
    proposal = Proposal.objects.create(kind=Proposal.Kind.NEW, title="A hang at 512 GPUs", text="It hung.")
    client.force_login(editor)
    changelist = reverse("admin:incidents_proposal_changelist")
    response = client.post(changelist, {"action": "decline", "_selected_action": [proposal.pk]})
    assert response.status_code == 302
    assert [str(m) for m in get_messages(response.wsgi_request)] == [
        "A hang at 512 GPUs: say why the proposal is declined: open it, write the reason in its "
        "“Decline reason” field and press “Decline”"
    ]
    proposal.refresh_from_db()
    assert proposal.status == Proposal.Status.RECEIVED
    # The field so named is the one the proposal's admin page shows.
    page = client.get(reverse("admin:incidents_proposal_change", args=[proposal.pk])).content.decode()
    assert '<label for="id_decline_reason">Decline reason:</label>' in page
