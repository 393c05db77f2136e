"""Case ids are read alike at every door (a new user's walkthrough):

- the admin's merge form refused `il-0431` ("no case 'il-0431'") and `IL-9999` with no
  closest ids, where the API takes any spelling of an id and suggests ids: both now read the
  case to keep through `lookup.case_to_keep`, and merging into a merged-away id names the
  case to merge into;
- "closest ids" suggested the retracted IL-0637 for `IL-9999`: suggestions are published
  cases only, never retracted or merged-away ids;
- `GET /api/` was a bare 404: it is the API's index.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from incidents import services
from incidents.admin.forms import MergeForm
from incidents.models import Case
from incidents.selectors import find_case
from incidents.selectors.lookup import KeptCaseProblem, case_to_keep
from tests.mcp.conftest import InMemoryMcp

from .conftest import api, etag_of, retract

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("typed", ["IL-0431", "il-0431", "IL0431", "il431", " 431 "])
def test_the_case_to_keep_is_read_in_any_spelling(typed):
    assert case_to_keep(typed) == "IL-0431"
    form = MergeForm(data={"kept": typed, "reason": ""})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["kept"] == "IL-0431"


def test_an_unknown_case_to_keep_names_the_closest_published_ids(reviewer):
    retract(reviewer, "IL-0499", "withdrawn")  # one digit from IL-0489 and IL-0498
    with pytest.raises(KeptCaseProblem) as caught:
        case_to_keep("IL-0499x")
    assert caught.value.unknown
    form = MergeForm(data={"kept": "IL-4999", "reason": ""})
    assert not form.is_valid()
    [message] = form.errors["kept"]
    assert message.startswith("no case 'IL-4999'; the closest ids: ")
    assert "IL-0499" not in message


def test_a_merged_away_id_names_the_case_to_merge_into(reviewer):
    services.merge_cases("IL-0433", "IL-0431", user=reviewer, reason="same incident")
    with pytest.raises(KeptCaseProblem, match="^IL-0433 was merged into IL-0431: merge into IL-0431$"):
        case_to_keep("il-0433")
    client = api(reviewer)
    url = reverse("api:case-merge", args=["IL-0479"])
    refused = client.post(url, {"into": "IL-0433"}, format="json", HTTP_IF_MATCH=etag_of(client, "IL-0479"))
    assert (refused.status_code, refused.json()["detail"]) == (
        409,
        "IL-0433 was merged into IL-0431: merge into IL-0431",
    )


def test_the_api_merges_into_any_spelling_and_names_closest_ids(reviewer):
    client = api(reviewer)
    url = reverse("api:case-merge", args=["IL-0479"])
    unknown = client.post(url, {"into": "IL-9999"}, format="json", HTTP_IF_MATCH=etag_of(client, "IL-0479"))
    assert unknown.status_code == 404
    assert unknown.json()["detail"].startswith("no case 'IL-9999'; the closest ids: ")
    merged = client.post(url, {"into": "il0431"}, format="json", HTTP_IF_MATCH=etag_of(client, "IL-0479"))
    assert merged.status_code == 200, merged.json()
    assert merged.json()["id"] == "IL-0431"
    assert Case.objects.get(id="IL-0479").merged_into_id == "IL-0431"


def test_the_admin_merge_form_merges_into_a_lowercase_id(reviewer, client):
    client.force_login(reviewer)
    url = reverse("admin:incidents_case_merge", args=["IL-0479"])
    answer = client.post(url, {"kept": "il-0431", "reason": "same incident"})
    assert answer.status_code == 302
    assert Case.objects.get(id="IL-0479").merged_into_id == "IL-0431"
    unknown = client.post(reverse("admin:incidents_case_merge", args=["IL-0480"]), {"kept": "IL-9999"})
    assert "no case &#x27;IL-9999&#x27;; the closest ids: " in unknown.content.decode()


@pytest.mark.django_db(transaction=True)  # MCP reads the retraction from its own connection
def test_closest_ids_are_never_retracted_or_merged_away(transactional_cases, reviewer, client):
    retract(reviewer, "IL-0499", "withdrawn")
    services.merge_cases("IL-0498", "IL-0431", user=reviewer, reason="same incident")
    for typed in ("IL-0499x", "IL-4999", "IL-0498x"):
        closest = find_case(typed).closest
        assert closest and not {"IL-0498", "IL-0499"} & set(closest), (typed, closest)
    page = client.get("/cases/IL-4999")
    assert page.status_code == 404 and "IL-0499" not in page.content.decode()
    assert "IL-0499" not in InMemoryMcp().error("get_incident", id="IL-4999")
    # A retracted id itself still resolves (its page says why it was withdrawn).
    assert find_case("IL-0499").case is not None


def test_the_api_root_is_its_index(client):
    answer = client.get("/api/")
    assert answer.status_code == 200
    body = answer.json()
    assert (body["schema"], body["docs"]) == ("http://testserver/api/schema/", "http://testserver/api/docs/")
    listed = {entry["path"]: entry for entry in body["endpoints"]}
    assert listed["/api/cases/"]["methods"] == ["GET", "POST"]
    assert listed["/api/cases/{case_id}/merge"]["methods"] == ["POST"]
    assert listed["/api/match"]["summary"]
    schema = client.get("/api/schema/?format=json").json()
    assert list(listed) == list(schema["paths"])
    assert client.get("/api/?x=1").status_code == 400
