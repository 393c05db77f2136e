"""Accepting a new case's proposal names the cases it looks like, as an admin save does.

A proposal citing the source URL of an existing case was told so on its status page, yet
the reviewer's accept published it with no word of it (a new user's walkthrough). The accept
now warns "Possible duplicate: ..." as saving a case in the admin does; it still publishes,
for a look-alike may be a second account of another incident.
"""

from __future__ import annotations

import pytest

from incidents.models import Case
from incidents.proposals.models import Proposal

from .conftest import write_symptoms
from .test_accepting_a_correction_is_worded_and_recorded import accept_in_the_list as accept
from .test_proposals import form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]

SOURCE = (
    "https://github.com/bigscience-workshop/bigscience/blob/master/train/tr11-176B-ml/chronicles-prequel.md"
)


def test_accepting_a_proposal_citing_a_case_s_source_names_that_case(client, reviewer):
    assert Case.objects.filter(id="IL-0428", sources__url=SOURCE).exists()
    assert form_post(client, source_urls=SOURCE).status_code == 302
    proposal = Proposal.objects.get()
    assert [found["id"] for found in proposal.lookalikes] == ["IL-0428"]
    write_symptoms(client, reviewer, proposal.case_id)
    assert accept(client, reviewer, proposal) == [
        f"{proposal.title}: accepted; {proposal.case_id} is published.",
        f"Possible duplicate: {proposal.case_id} looks like IL-0428 (same source URL {SOURCE})",
    ]
    assert Case.objects.get(id=proposal.case_id).status == Case.Status.PUBLISHED


def test_a_proposal_like_no_case_is_accepted_without_a_warning(client, reviewer):
    assert form_post(client).status_code == 302
    proposal = Proposal.objects.get()
    write_symptoms(client, reviewer, proposal.case_id)
    assert accept(client, reviewer, proposal) == [
        f"{proposal.title}: accepted; {proposal.case_id} is published."
    ]
