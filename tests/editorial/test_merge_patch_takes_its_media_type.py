"""`PATCH /api/cases/<id>` is a JSON Merge Patch (RFC 7396), and the schema names the RFC's
media type `application/merge-patch+json`, yet the API answered it 415 ("send the body as
application/json"): a client following the standard, or the schema, could not patch. PATCH
takes both types; PUT, a whole document, still takes JSON only."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from incidents.workflow import EDITOR

from .conftest import api, etag_of, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("no_rate_limits")]

CASE = "IL-0428"
MERGE_PATCH = "application/merge-patch+json"


def test_a_patch_in_the_rfcs_media_type_is_applied():
    client = api(make_user("edna", EDITOR))
    lessons = ["Read the NCCL watchdog's timeout as a symptom, not a cause."]
    response = client.patch(
        reverse("api:case-detail", args=[CASE]),
        data=json.dumps({"lessons": lessons}),
        content_type=MERGE_PATCH,
        HTTP_IF_MATCH=etag_of(client, CASE),
    )
    assert response.status_code == 200, response.content
    assert client.get(reverse("api:case-detail", args=[CASE])).json()["lessons"] == lessons


def test_put_still_takes_json_only_and_says_so():
    client = api(make_user("edna", EDITOR))
    document = client.get(reverse("api:case-detail", args=[CASE])).json()
    response = client.put(
        reverse("api:case-detail", args=[CASE]),
        data=json.dumps(document),
        content_type=MERGE_PATCH,
        HTTP_IF_MATCH=etag_of(client, CASE),
    )
    assert response.status_code == 415
    detail = response.json()["detail"]
    accepted = detail[detail.index("send the body as") :]
    assert "application/json" in accepted and MERGE_PATCH not in accepted


def test_a_bad_merge_patch_body_is_a_400_that_says_so():
    client = api(make_user("edna", EDITOR))
    response = client.patch(
        reverse("api:case-detail", args=[CASE]),
        data="{not json",
        content_type=MERGE_PATCH,
        HTTP_IF_MATCH=etag_of(client, CASE),
    )
    assert response.status_code == 400
    assert "JSON parse error" in json.dumps(response.json())
