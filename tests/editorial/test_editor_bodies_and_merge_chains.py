"""The editor endpoints read only the keys they document, and a merge that moves ids merged
earlier records it on them too.

- `POST /api/cases/{id}/status` and `/merge` answer 400 for a body key they do not read
  (`reasn` -> `reason`), as every other JSON body does, instead of dropping it silently:
  a misspelled reason would have left the retraction without one.
- Merging a duplicate moves the ids merged into it earlier to the kept case; those cases
  change too (the change feed already listed them), so each gets a history row at that time.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import services
from incidents.models import Case

from .test_write_api import api, etag_of

pytestmark = pytest.mark.django_db


def test_a_status_body_key_the_endpoint_does_not_read_is_a_400(reviewer):
    client = api(reviewer)
    url = reverse("api:case-status", args=["IL-0428"])
    response = client.post(
        url,
        {"status": "retracted", "reasn": "wrong numbers"},
        format="json",
        HTTP_IF_MATCH=etag_of(client, "IL-0428"),
    )
    assert response.status_code == 400
    [problem] = response.json()["errors"]
    assert problem["parameter"] == "reasn"
    assert problem["suggestions"] == ["reason"]
    assert Case.objects.get(id="IL-0428").status == Case.Status.PUBLISHED


def test_a_merge_body_key_the_endpoint_does_not_read_is_a_400(reviewer):
    client = api(reviewer)
    url = reverse("api:case-merge", args=["IL-0429"])
    response = client.post(
        url, {"into": "IL-0428", "kept": "IL-0428"}, format="json", HTTP_IF_MATCH=etag_of(client, "IL-0429")
    )
    assert response.status_code == 400
    assert [p["parameter"] for p in response.json()["errors"]] == ["kept"]
    assert Case.objects.get(id="IL-0429").status == Case.Status.PUBLISHED


def test_ids_merged_earlier_get_a_history_row_when_they_move(reviewer):
    services.merge_cases("IL-0430", "IL-0429", user=reviewer, reason="same run")
    rows_before = Case.history.filter(id="IL-0430").count()
    services.merge_cases("IL-0429", "IL-0428", user=reviewer, reason="same incident")

    moved = Case.objects.get(id="IL-0430")
    assert moved.merged_into_id == "IL-0428"
    assert Case.history.filter(id="IL-0430").count() == rows_before + 1
    latest = Case.history.filter(id="IL-0430").order_by("-history_date").first()
    assert latest is not None
    assert latest.history_change_reason == "now redirects to IL-0428: IL-0429 merged into it"
    assert latest.history_date == moved.modified
    assert latest.merged_into_id == "IL-0428"
