"""GET /api/changes: ids with their last-modified time, newest first, for mirrors."""

from __future__ import annotations

import base64
import datetime
import json
from urllib.parse import parse_qs, urlsplit

import pytest

from incidents.models import Case
from incidents.services import import_case_files
from tests.factories import synthetic_case, write_cases

from .conftest import assert_matches_schema

pytestmark = pytest.mark.django_db


def test_it_lists_visible_cases_newest_first(client):
    response = client.get("/api/changes?limit=1000")
    assert_matches_schema(response, "/api/changes")
    body = response.json()
    expected = list(Case.objects.visible().order_by("-modified", "-id").values_list("id", "modified"))
    assert [(r["id"], r["modified"]) for r in body["results"]] == [
        (i, m.isoformat().replace("+00:00", "Z")) for i, m in expected
    ]
    assert body["results"][0]["url"] == f"http://testserver/api/cases/{expected[0][0]}"
    assert body["next"] is None


def test_since_gives_only_later_changes_including_retractions(client, tmp_path):
    newest = client.get("/api/changes?limit=1").json()["results"][0]["modified"]
    assert client.get(f"/api/changes?since={newest}").json()["results"] == []
    import_case_files(
        paths=write_cases(
            tmp_path,
            [
                synthetic_case(1),
                synthetic_case(2, status="retracted"),
                synthetic_case(3, status="draft"),
            ],
        )
    )
    changes = client.get(f"/api/changes?since={newest}").json()["results"]
    assert [(c["id"], c["status"]) for c in changes] == [
        ("IL-900002", "retracted"),
        ("IL-900001", "published"),
    ]


def test_pages_follow_next_links_without_gaps(client):
    seen = []
    url = "/api/changes?limit=7"
    while url:
        body = client.get(url).json()
        assert len(body["results"]) <= 7
        seen += [r["id"] for r in body["results"]]
        url = body["next"]
    assert seen == list(Case.objects.visible().order_by("-modified", "-id").values_list("id", flat=True))


def test_since_without_offset_is_utc_and_bad_values_are_400(client):
    later = (datetime.datetime.now(datetime.UTC) + datetime.timedelta(days=1)).replace(tzinfo=None)
    assert client.get(f"/api/changes?since={later.isoformat()}").json()["results"] == []
    for query, parameter in [
        ("since=yesterday", "since"),
        ("limit=1001", "limit"),
        ("cursor=bogus", "cursor"),
        ("until=2024-01-01", "until"),
    ]:
        response = client.get(f"/api/changes?{query}")
        assert response.status_code == 400
        assert [e["parameter"] for e in response.json()["errors"]] == [parameter]


def test_an_unencoded_plus_in_the_offset_still_reads(client):
    newest = client.get("/api/changes?limit=1").json()["results"][0]["modified"]
    stamp = datetime.datetime.fromisoformat(newest.replace("Z", "+00:00"))
    local = stamp.astimezone(datetime.timezone(datetime.timedelta(hours=2))).isoformat()
    assert "+02:00" in local
    response = client.get(f"/api/changes?since={local}")  # "+" decodes to a space
    assert (response.status_code, response.json()["results"]) == (200, [])


def cursor_of(link: str) -> dict:
    text = parse_qs(urlsplit(link).query)["cursor"][0]
    return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))


def test_next_and_previous_cursors_hold_the_last_and_first_rows_time_and_id(client):
    first = client.get("/api/changes?limit=3").json()
    assert first["previous"] is None
    last = Case.objects.visible().order_by("-modified", "-id")[2]
    assert cursor_of(first["next"]) == {"m": last.modified.isoformat(), "i": last.id, "r": 0}
    second = client.get(first["next"]).json()
    following = Case.objects.visible().order_by("-modified", "-id")[3]
    assert second["results"][0]["id"] == following.id
    assert cursor_of(second["previous"]) == {"m": following.modified.isoformat(), "i": following.id, "r": 1}
    assert urlsplit(second["next"]).query.startswith("cursor=") and "limit=3" in second["next"]


def encoded(data) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "bogus",
        "é",
        base64.b64encode(b"p=2024-01-01+00%3A00%3A00").decode(),  # DRF's own cursor, as before
        encoded({"o": 100, "k": "search"}),  # an MCP cursor
        encoded({"m": "2024-01-01T00:00:00+00:00", "i": "IL-0428"}),
        encoded({"m": "2024-01-01T00:00:00", "i": "IL-0428", "r": 0}),
        encoded({"m": "0001-01-01T00:00:00+01:00", "i": "IL-0428", "r": 0}),
        encoded({"m": "2024-01-01T00:00:00+00:00", "i": "IL-04\x0028", "r": 0}),
        encoded({"m": "2024-01-01T00:00:00+00:00", "i": 428, "r": 0}),
        encoded({"m": "2024-01-01T00:00:00+00:00", "i": "IL-0428", "r": 2}),
        encoded(["2024-01-01T00:00:00+00:00", "IL-0428", 0]),
        encoded({"m": "2024-01-01T00:00:00+00:00", "i": "IL-0428", "r": 0, "pad": "x" * 200}),
    ],
)
def test_a_cursor_it_did_not_give_out_is_a_400_naming_cursor(client, cursor):
    response = client.get("/api/changes", {"cursor": cursor})
    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"] == [
        {
            "parameter": "cursor",
            "detail": "not a cursor this feed gave out; follow `next` / `previous` links",
            "value": cursor,
        }
    ]


def test_an_empty_cursor_is_one_not_given(client):
    """A script sending `?cursor=$C` with no cursor yet gets the first page, as an empty
    `since` or `limit` is read as not given (the README's rule for every parameter)."""
    first = client.get("/api/changes?limit=2")
    for query in ("?limit=2&cursor=", "?since=&cursor=&limit=2"):
        response = client.get(f"/api/changes{query}")
        assert response.status_code == 200, response.content
        assert response.json()["results"] == first.json()["results"]
        assert len(response.json()["results"]) == 2
