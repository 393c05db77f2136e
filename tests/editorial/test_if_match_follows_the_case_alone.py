"""`If-Match` on the write API holds while the case written is unchanged, whatever happens to
other cases: the ETag is `"<case version>.<representation>"` and a write compares the case's
part alone. GET's ETag still changes with any case (the answer lists related cases), and a
write answer, which shows the case as stored, carries an ETag of its own that `If-Match`
takes but that never validates GET's body."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents import services
from incidents.history import case_history
from incidents.models import Case, Facet, Term
from tests.conftest import load_fixture
from tests.factories import NEW_PROPOSAL

from .conftest import api, etag_of
from .test_related_links_follow_retractions_and_merges import SHOWN, STORED, retract_and_merge

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_rate_limits")]

CASE = "IL-0428"
OTHER = "IL-0429"


def url(case_id: str) -> str:
    return reverse("api:case-detail", args=[case_id])


def patch(client: APIClient, case_id: str, etag: str, lessons: list[str]):
    return client.patch(url(case_id), {"lessons": lessons}, format="json", HTTP_IF_MATCH=etag)


# --- (a) writes elsewhere leave the ETag valid ---


def another_case_edited(reviewer) -> None:
    client = api(reviewer)
    assert patch(client, OTHER, etag_of(client, OTHER), ["Another case's lesson."]).status_code == 200


def another_case_retracted(reviewer) -> None:
    client = api(reviewer)
    response = client.post(
        reverse("api:case-status", args=[OTHER]),
        {"status": "retracted", "reason": "withdrawn"},
        format="json",
        HTTP_IF_MATCH=etag_of(client, OTHER),
    )
    assert response.status_code == 200


def a_proposal_submitted(reviewer) -> None:
    drafts = Case.objects.filter(status=Case.Status.DRAFT).count()
    proposal = {**NEW_PROPOSAL, "source_urls": ["https://example.org/blog/checkpoint-stall"]}
    assert api().post(reverse("api:proposal-create"), proposal, format="json").status_code == 201
    assert Case.objects.filter(status=Case.Status.DRAFT).count() == drafts + 1


def a_term_described_anew(reviewer) -> None:
    term = Case.objects.get(id=CASE).root_cause_category
    term.description += " (edited)"
    services.save_term(term, user=reviewer)


@pytest.mark.parametrize(
    "elsewhere", [another_case_edited, another_case_retracted, a_proposal_submitted, a_term_described_anew]
)
def test_a_write_elsewhere_leaves_the_etag_valid(editor, reviewer, elsewhere: Callable):
    client = api(editor)
    etag = etag_of(client, CASE)
    elsewhere(reviewer)
    # GET's answer may have changed (related cases, the vocabulary): its ETag did.
    assert etag_of(client, CASE) != etag
    response = patch(client, CASE, etag, ["Written after a change elsewhere."])
    assert response.status_code == 200, response.json()
    assert Case.objects.get(id=CASE).lessons == ["Written after a change elsewhere."]
    assert case_history(CASE)[0].user == "edna"


# --- (b) a change to the case itself makes it stale ---


def edited(reviewer) -> None:
    client = api(reviewer)
    assert patch(client, CASE, etag_of(client, CASE), ["The reviewer's lesson."]).status_code == 200


def links_edited(reviewer) -> None:
    client = api(reviewer)
    response = client.patch(
        url(CASE), {"related": ["IL-0431"]}, format="json", HTTP_IF_MATCH=etag_of(client, CASE)
    )
    assert response.status_code == 200, response.json()


def retracted(reviewer) -> None:
    services.change_status(CASE, Case.Status.RETRACTED, user=reviewer, reason="withdrawn")


def merged_into(reviewer) -> None:
    services.merge_cases(OTHER, CASE, user=reviewer, reason="the same outage")


def error_code_derived(reviewer) -> None:
    # Xid 79's patterns now match the case's title: the code is stored on the case, derived.
    term = Term.objects.get(facet=Facet.ERROR_CODE, slug="xid-79")
    term.patterns = [*term.patterns, re.escape(Case.objects.get(id=CASE).title)]
    services.save_term(term, user=reviewer)
    assert Case.objects.get(id=CASE).term_links.filter(term=term, derived=True).exists()


@pytest.mark.parametrize("change", [edited, links_edited, retracted, merged_into, error_code_derived])
def test_a_change_to_the_case_makes_the_etag_stale_and_nothing_is_written(editor, reviewer, change):
    client = api(editor)
    etag = etag_of(client, CASE)
    change(reviewer)
    lessons, history = Case.objects.get(id=CASE).lessons, len(case_history(CASE))
    response = patch(client, CASE, etag, ["The editor's late lesson."])
    assert response.status_code == 412
    assert response["Content-Type"].startswith("application/problem+json")
    assert "the case changed since you read it" in response.json()["detail"]
    assert (Case.objects.get(id=CASE).lessons, len(case_history(CASE))) == (lessons, history)


def test_a_stale_status_change_is_412_too(editor, reviewer):
    etag = etag_of(api(reviewer), CASE)
    edited(editor)
    response = api(reviewer).post(
        reverse("api:case-status", args=[CASE]),
        {"status": "retracted", "reason": "withdrawn"},
        format="json",
        HTTP_IF_MATCH=etag,
    )
    assert response.status_code == 412
    assert Case.objects.get(id=CASE).status == Case.Status.PUBLISHED


def test_another_cases_etag_is_no_etag_of_this_one(editor):
    client = api(editor)
    response = patch(client, CASE, etag_of(client, OTHER), ["Sent with the wrong case's ETag."])
    assert response.status_code == 412
    assert Case.objects.get(id=CASE).lessons == load_fixture(CASE)["lessons"]


def test_any_etag_in_the_list_may_match(editor):
    client = api(editor)
    fresh = etag_of(client, CASE)
    assert patch(client, CASE, f'"not-ours", W/{fresh}', ["Either one."]).status_code == 200


# --- (c) a write answer's ETag is the next write's If-Match ---


def test_the_etag_of_a_write_answer_is_the_next_writes_if_match(editor, reviewer):
    client = api(editor)
    read = etag_of(client, CASE)
    first = patch(client, CASE, read, ["First."])
    assert first.status_code == 200
    second = patch(client, CASE, first["ETag"], ["Second."])
    assert second.status_code == 200, second.json()
    assert second["ETag"] != first["ETag"]
    assert patch(client, CASE, first["ETag"], ["Late."]).status_code == 412
    assert patch(client, CASE, read, ["Later."]).status_code == 412
    retraction = api(reviewer).post(
        reverse("api:case-status", args=[CASE]),
        {"status": "retracted", "reason": "withdrawn"},
        format="json",
        HTTP_IF_MATCH=second["ETag"],
    )
    assert retraction.status_code == 200, retraction.json()
    assert Case.objects.get(id=CASE).lessons == ["Second."]


def test_a_draft_created_through_the_api_is_edited_with_the_creations_etag(editor):
    # A draft has no GET: the answer to its creation is where its ETag comes from.
    client = api(editor)
    document = load_fixture(CASE)
    document.pop("id")
    document.update(status="draft", title="A draft written through the API by an editor", related=[])
    document["sources"] = [{"title": "Account", "url": "https://example.org/api-draft"}]
    created = client.post(reverse("api:case-list"), document, format="json")
    assert created.status_code == 201, created.json()
    response = patch(client, created.json()["id"], created["ETag"], ["Added to the draft."])
    assert response.status_code == 200, response.json()
    assert Case.objects.get(id=created.json()["id"]).lessons == ["Added to the draft."]


# --- (d) a write answer and GET: two bodies, two ETags ---


def test_a_write_answer_and_get_never_share_an_etag(reviewer):
    retract_and_merge(reviewer)  # IL-0431 now links cases GET does not show
    client = api(reviewer)
    read = client.get(url("IL-0431"))
    written = patch(client, "IL-0431", read["ETag"], ["Check the links."])
    assert written.status_code == 200
    assert written.json()["related"] == STORED  # the case as stored
    get = client.get(url("IL-0431"))
    assert get.json()["related"] == SHOWN  # the published links only
    assert written["ETag"] != get["ETag"]
    # Revalidating GET with the write answer's ETag gets GET's own body, never a 304.
    revalidated = client.get(url("IL-0431"), headers={"If-None-Match": written["ETag"]})
    assert (revalidated.status_code, revalidated.json()["related"]) == (200, SHOWN)
    assert client.get(url("IL-0431"), headers={"If-None-Match": get["ETag"]}).status_code == 304
    # Both name the same version of the case for a write.
    assert patch(client, "IL-0431", get["ETag"], ["Checked."]).status_code == 200
