"""The proposal rate counts proposals received, not attempts: a newcomer fixing the form's
errors one by one is not locked out. Refused proposals count apart, against a larger rate,
so a client posting only invalid ones is still stopped; every 429 (form and API) says when
to try again, in its text and in `Retry-After`."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse
from rest_framework.test import APIClient

from incidents.models import Term
from incidents.proposals.models import Proposal
from tests.factories import NEW_PROPOSAL as NEW

from .conftest import form_data

pytestmark = pytest.mark.django_db

TOO_SHORT = {**NEW, "title": "short"}
BAD_TOPIC = {**NEW, "topic": "no-such-topic"}


@pytest.fixture(autouse=True)
def small_rates(settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            "api": None,
            "api-heavy": None,
            "proposals": "2/hour",
            "proposals-refused": "5/hour",
        },
    }
    cache.clear()


def api_post(body, address):
    return APIClient().post(reverse("api:proposal-create"), body, format="json", REMOTE_ADDR=address)


def form_post(client, address, **changes):
    page = client.get(reverse("incidents:propose"))
    data = form_data(page.content.decode(), None)
    topic = Term.objects.get(facet="topic", slug="checkpoint-storage")
    data.update({k: [v] for k, v in {**NEW, "topic": str(topic.pk), **changes}.items()})
    return client.post(reverse("incidents:propose"), data, REMOTE_ADDR=address)


def test_refused_proposals_do_not_use_up_the_proposal_rate(client):
    # Four refusals at both doors, more than the proposal rate (2/hour) allows proposals.
    assert [api_post(body, "10.9.0.1").status_code for body in (TOO_SHORT, BAD_TOPIC)] == [400, 400]
    assert form_post(client, "10.9.0.1", title="short").status_code == 400
    assert form_post(client, "10.9.0.1", published="2025-02-30").status_code == 400
    # Still both proposals of the rate.
    assert api_post(NEW, "10.9.0.1").status_code == 201
    assert form_post(client, "10.9.0.1", title=NEW["title"] + " again").status_code == 302
    assert Proposal.objects.count() == 2


def test_past_the_proposal_rate_both_doors_answer_429_with_retry_after(client):
    assert api_post(NEW, "10.9.0.2").status_code == 201
    assert form_post(client, "10.9.0.2", title=NEW["title"] + " again").status_code == 302
    api = api_post({**NEW, "title": NEW["title"] + " thrice"}, "10.9.0.2")
    assert api.status_code == 429
    assert 3590 <= int(api["Retry-After"]) <= 3600
    assert api.json()["detail"] == (
        f"Too many proposals from here (at most 2/hour). Expected available in {api['Retry-After']} seconds."
    )
    # Which limit and when to retry, as every 429 of the API says them.
    assert {key: api.json()[key] for key in ("scope", "rate", "retry_after")} == {
        "scope": "proposals",
        "rate": "2/hour",
        "retry_after": int(api["Retry-After"]),
    }
    form = form_post(client, "10.9.0.2", title=NEW["title"] + " fourth")
    assert form.status_code == 429
    wait = int(form["Retry-After"])
    assert 3590 <= wait <= 3600
    assert form.context["form"].non_field_errors() == [
        f"Too many proposals from here (at most 2/hour); try again in {wait} seconds."
    ]
    assert Proposal.objects.count() == 2


def test_refusals_have_their_own_larger_rate(client):
    statuses = [api_post(TOO_SHORT, "10.9.0.3").status_code for _ in range(3)]
    statuses += [form_post(client, "10.9.0.3", title="short").status_code for _ in range(2)]
    assert statuses == [400] * 5
    # The sixth refusal in the hour is not read at all, nor is a valid proposal: the client
    # posting invalid ones is stopped at both doors.
    api = api_post(NEW, "10.9.0.3")
    assert api.status_code == 429 and int(api["Retry-After"]) > 3500
    assert api.json()["detail"].startswith("Too many refused proposals from here (at most 5/hour).")
    form = form_post(client, "10.9.0.3", title="short")
    assert form.status_code == 429 and int(form["Retry-After"]) > 3500
    assert not Proposal.objects.exists()
    # Another client is not concerned.
    assert api_post(NEW, "10.9.0.4").status_code == 201


def test_a_malformed_body_counts_as_refused():
    for _ in range(5):
        response = APIClient().post(
            reverse("api:proposal-create"),
            "{not json",
            content_type="application/json",
            REMOTE_ADDR="10.9.0.5",
        )
        assert response.status_code == 400
    assert api_post(NEW, "10.9.0.5").status_code == 429
