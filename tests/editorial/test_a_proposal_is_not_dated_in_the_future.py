"""A new case's source is dated today at the latest: a date in the future is refused,
saying so, at both doors (a day of slack for the proposer's time zone)."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from incidents.proposals.models import Proposal

from .test_proposals import NEW, form_post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("proposal_rate")]


@pytest.mark.parametrize("published", ["2030-01-01", "9999-12-31"])
def test_a_date_in_the_future_is_refused_at_both_doors(client, published):
    message = f"{published} is in the future: give the date the source was published."
    api = APIClient().post(reverse("api:proposal-create"), {**NEW, "published": published}, format="json")
    assert api.status_code == 400
    # The API's words are every parameter error's: a phrase after the name, no final period.
    assert api.json()["errors"] == [{"parameter": "published", "detail": message.removesuffix(".")}]
    page = form_post(client, published=published)
    assert page.status_code == 400
    assert page.context["form"].errors["published"] == [message.removesuffix(".")]  # the same words
    assert not Proposal.objects.exists()


def test_today_is_accepted(client):
    today = timezone.now().date().isoformat()
    api = APIClient().post(reverse("api:proposal-create"), {**NEW, "published": today}, format="json")
    assert api.status_code == 201
    tomorrow = (timezone.now().date() + datetime.timedelta(days=1)).isoformat()
    assert form_post(client, published=tomorrow, title=NEW["title"] + " again").status_code == 302
