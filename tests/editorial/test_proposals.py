"""Public proposals: the form and the API, abuse limits, the review queue and status link."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.documents import case_document
from incidents.models import Case, Source, Term
from incidents.proposals import services
from incidents.proposals.models import Proposal
from tests.factories import NEW_PROPOSAL as NEW

from .conftest import form_data, write_symptoms

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]


def form_post(client, **changes):
    page = client.get(reverse("incidents:propose"))
    data = form_data(page.content.decode(), None)
    topic = Term.objects.get(facet="topic", slug=changes.pop("topic_slug", "checkpoint-storage"))
    data.update({k: [v] for k, v in {**NEW, "topic": str(topic.pk), **changes}.items()})
    return client.post(reverse("incidents:propose"), data)


def test_a_new_case_proposal_lands_as_a_draft_in_the_queue(client):
    response = form_post(client)
    assert response.status_code == 302
    proposal = Proposal.objects.get()
    assert response["Location"] == reverse("incidents:proposal-status", args=[proposal.token])
    draft = proposal.case
    assert (draft.status, draft.title, draft.organization) == ("draft", NEW["title"], "Meta AI")
    assert list(draft.sources.values_list("url", flat=True)) == [NEW["source_urls"]]
    assert draft.root_cause_category.name == "Root cause unknown"
    assert client.get(reverse("incidents:case-detail", args=[draft.id])).status_code == 404
    status = client.get(response["Location"])
    assert "Received" in status.content.decode()
    assert status["X-Robots-Tag"] == "noindex"


def test_a_new_case_s_text_is_its_draft_s_summary_alone(client):
    # It was copied into the symptoms too, so the reviewer read the same text twice; what
    # operators saw is the reviewer's to write (the schema requires the field, not its text).
    form_post(client)
    api = APIClient().post("/api/proposals/", {**NEW, "topic": "checkpoint-storage"}, format="json")
    assert api.status_code == 201 and Proposal.objects.count() == 2
    for proposal in Proposal.objects.order_by("pk"):
        draft = Case.objects.with_document().get(pk=proposal.case_id)
        assert (draft.summary, draft.symptoms_description) == (NEW["text"], "")
        assert case_document(draft)["symptoms"] == {"description": "", "tags": [], "error_codes": []}


def test_the_form_needs_its_csrf_token():
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    topic = Term.objects.get(facet="topic", slug="checkpoint-storage")
    response = strict.post(reverse("incidents:propose"), {**NEW, "topic": topic.pk})
    assert response.status_code == 403
    assert not Proposal.objects.exists()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"title": "<b>Bold</b> claims about a broken cluster"}, "title"),
        ({"text": 'See <a href="https://spam.example">this</a>'}, "text"),
        ({"text": "x" * 5001}, "text"),
        ({"source_urls": "ftp://example.org/x"}, "source_urls"),
        ({"source_urls": "\n".join(f"https://example.org/{i}" for i in range(11))}, "source_urls"),
        ({"title": "short"}, "title"),
    ],
)
def test_bad_input_is_refused_naming_the_field(client, change, field):
    response = form_post(client, **change)
    assert response.status_code == 400
    assert f'id="field-{field}"' in response.content.decode()
    assert response.context["form"].errors[field]
    assert not Proposal.objects.exists()


@pytest.mark.parametrize(
    ("published", "message", "phrase"),
    [
        (
            "2025-02-30",
            "2025-02-30 is not a date: February 2025 has 28 days.",
            "2025-02-30 is not a date: February 2025 has 28 days",
        ),
        (
            "2024-04-31",
            "2024-04-31 is not a date: April 2024 has 30 days.",
            "2024-04-31 is not a date: April 2024 has 30 days",
        ),
        (
            "2025-13-01",
            "2025-13-01 is not a date: there is no month 13 (months are 01 to 12).",
            "2025-13-01 is not a date: there is no month 13 (months are 01 to 12)",
        ),
        (
            "2025-02-00",
            "2025-02-00 is not a date: there is no day 0.",
            "2025-02-00 is not a date: there is no day 0",
        ),
        # Not the help text's form (Django alone would read 03/04/2025 as March 4).
        (
            "03/04/2025",
            "Write the date as YYYY-MM-DD, e.g. 2025-02-28 (not “03/04/2025”).",
            "write the date as YYYY-MM-DD, e.g. 2025-02-28 (not “03/04/2025”)",
        ),
        ("", "Needed for a new case.", "needed for a new case"),
    ],
)
def test_a_date_that_does_not_exist_says_why_at_both_doors(client, published, message, phrase):
    """The page and the API say it in the same words: the phrase after a parameter's name
    that every API error is (the form's own sentence, `message`, reworded)."""
    response = form_post(client, published=published)
    assert response.status_code == 400
    assert response.context["form"].errors["published"] == [phrase]
    assert response.context["form"].errors["published"] != [message]
    api = APIClient().post(reverse("api:proposal-create"), {**NEW, "published": published}, format="json")
    assert api.status_code == 400
    assert [(e["parameter"], e["detail"]) for e in api.json()["errors"]] == [("published", phrase)]
    assert not Proposal.objects.exists()


def test_the_honeypot_refuses_bots(client):
    response = form_post(client, website="https://cheap-pills.example")
    assert response.status_code == 400
    assert "looks automated" in response.content.decode()
    assert not Proposal.objects.exists()


def test_proposals_are_rate_limited_per_client_across_form_and_api(client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"proposals": "2/hour"}}
    assert form_post(client).status_code == 302
    assert (
        APIClient()
        .post(reverse("api:proposal-create"), {**NEW, "title": NEW["title"] + " again"}, format="json")
        .status_code
        == 201
    )
    third = form_post(client, title=NEW["title"] + " thrice")
    assert third.status_code == 429
    assert "Too many proposals" in third.content.decode()
    api = APIClient().post(reverse("api:proposal-create"), NEW, format="json")
    assert api.status_code == 429 and int(api["Retry-After"]) > 0
    assert Proposal.objects.count() == 2


def test_a_correction_names_a_published_case(client):
    response = form_post(client, kind="correction", case_id="il-0428", text="The TTR is 3 hours, not 2.")
    assert response.status_code == 302
    proposal = Proposal.objects.get()
    assert (proposal.kind, proposal.case_id) == ("correction", "IL-0428")
    assert form_post(client, kind="correction", case_id="IL-9999").status_code == 400


def test_the_api_takes_a_proposal_and_answers_the_private_status_url():
    client = APIClient()
    response = client.post(
        reverse("api:proposal-create"), {**NEW, "source_urls": [NEW["source_urls"]]}, format="json"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["status"], body["kind"], body["case"]) == ("received", "new", None)
    assert client.get(body["status_url"].removeprefix("http://testserver")).status_code == 200
    status = client.get(body["url"].removeprefix("http://testserver")).json()
    assert status["status"] == "received"
    bad = client.post(reverse("api:proposal-create"), {**NEW, "text": "<script>x</script>"}, format="json")
    assert bad.status_code == 400
    assert [e["parameter"] for e in bad.json()["errors"]] == ["text"]


def test_lookalikes_flag_the_same_source_url_and_near_identical_text():
    case = Case.objects.with_document().get(id="IL-0428")
    url = Source.objects.filter(case=case).first().url
    client = APIClient()
    by_url = client.get(
        reverse("api:proposal-lookalikes"), {"url": url.replace("https://", "http://") + "/"}
    ).json()
    assert [(d["id"], d["reason"].split(" ")[0]) for d in by_url["duplicates"]] == [("IL-0428", "same")]
    by_text = client.get(
        reverse("api:proposal-lookalikes"), {"title": case.title, "text": case.summary}
    ).json()
    assert by_text["duplicates"][0]["id"] == "IL-0428"
    assert by_text["duplicates"][0]["reason"].startswith("near-identical text")
    by_title = client.get(reverse("api:proposal-lookalikes"), {"title": "NCCL timeout"}).json()
    assert by_title["duplicates"] == [] and by_title["similar"]


def test_a_proposal_records_what_it_looked_like_when_sent(client):
    url = Source.objects.filter(case_id="IL-0428").first().url
    form_post(client, source_urls=url)
    assert Proposal.objects.get().lookalikes[0]["id"] == "IL-0428"


def test_review_accept_publishes_the_draft_and_decline_keeps_the_reason(client, editor, reviewer):
    form_post(client)
    proposal = Proposal.objects.get()
    services.start_review(proposal, user=editor)
    assert Case.objects.get(id=proposal.case_id).status == "in_review"
    with pytest.raises(Exception, match="reviewer"):
        services.accept(proposal, user=editor)
    write_symptoms(client, reviewer, proposal.case_id)
    services.accept(proposal, user=reviewer)
    assert Case.objects.get(id=proposal.case_id).status == "published"
    page = client.get(proposal.get_absolute_url()).content.decode()
    assert "Accepted" in page and proposal.case_id in page

    form_post(client, title="Another proposal about a stalled checkpoint job")
    other = Proposal.objects.exclude(pk=proposal.pk).get()
    with pytest.raises(services.ReviewError, match="why"):
        services.decline(other, user=editor, reason=" ")
    services.decline(other, user=editor, reason="The source does not describe an incident.")
    assert (
        "The source does not describe an incident." in client.get(other.get_absolute_url()).content.decode()
    )
    assert Case.objects.get(id=other.case_id).status == "draft"


def test_an_unknown_status_link_is_404(client):
    assert client.get(reverse("incidents:proposal-status", args=["nope"])).status_code == 404
    assert APIClient().get(reverse("api:proposal-status", args=["nope"])).status_code == 404
