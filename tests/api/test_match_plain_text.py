"""`POST /api/match` also takes the log itself as a `text/plain` body."""

from __future__ import annotations

import pytest

from tests.conftest import ids_quoting

pytestmark = pytest.mark.django_db

LOG = "NVRM: Xid (PCI:0000:87:00): 79, pid=1234, GPU has fallen off the bus.\nepoch 3 step 100 loss 2.1\n"


def test_a_plain_text_body_is_matched_like_the_json_one(client):
    plain = client.post("/api/match", data=LOG.encode(), content_type="text/plain")
    as_json = client.post("/api/match", data={"text": LOG}, content_type="application/json")
    assert plain.status_code == as_json.status_code == 200
    assert plain.json() == as_json.json()
    first = plain.json()["results"][0]
    assert first["id"] in ids_quoting("Xid 79")  # IL-0444 and IL-0523 both quote it
    assert first["confidence"] in {"strong", "possible"}
    [line] = [entry for entry in first["lines"] if entry["line_number"] == 1]
    assert "Xid 79" in line["terms"]
    start, end = line["spans"][0]
    assert line["line"][start:end]
    # Two lines: the final newline ends the second one, it does not start a blank third.
    assert plain.json()["reading"]["lines_read"] == 2
    assert plain.json()["reading"]["lines_blank"] == 0


def test_a_plain_body_over_the_log_limit_is_a_413_saying_its_length(client):
    # It was a 400 on a `text` field the client never sent.
    response = client.post("/api/match", data=b"x" * 1_000_001, content_type="text/plain")
    assert response.status_code == 413
    assert response.json() == {
        "type": "about:blank",
        "title": "Content Too Large",  # one title for every 413 (it read "Request Entity Too Large")
        "status": 413,
        "detail": "A text/plain body is the log itself, of at most 1,000,000 characters; "
        "this one has 1,000,001.",
        "instance": "/api/match",
    }
    # Characters, not bytes: a million two-byte characters is a log of the limit.
    at_the_limit = client.post("/api/match", data="é".encode() * 1_000_000, content_type="text/plain")
    assert at_the_limit.status_code == 200


def test_in_json_the_same_log_is_the_same_413_naming_the_text_field(client):
    # It was a 400 where the raw log was a 413: one status for one condition.
    as_json = client.post("/api/match", data={"text": "x" * 1_000_001}, content_type="application/json")
    plain = client.post("/api/match", data=b"x" * 1_000_001, content_type="text/plain")
    assert as_json.status_code == plain.status_code == 413
    assert as_json.json()["title"] == plain.json()["title"] == "Content Too Large"
    assert as_json.json()["errors"] == [
        {"parameter": "text", "detail": "must be at most 1,000,000 characters long (got 1,000,001)"}
    ]


def test_a_plain_body_takes_its_limit_in_the_query_string(client):
    # `curl --data-binary @job.log 'http://.../api/match?limit=1'`: the body is the log alone.
    plain = client.post("/api/match?limit=1", data=LOG.encode(), content_type="text/plain")
    as_json = client.post("/api/match", data={"text": LOG, "limit": 1}, content_type="application/json")
    assert plain.status_code == as_json.status_code == 200
    assert plain.json() == as_json.json()
    assert len(plain.json()["results"]) == 1
    blank = client.post("/api/match?limit=", data=LOG.encode(), content_type="text/plain")
    assert blank.json() == client.post("/api/match", data=LOG.encode(), content_type="text/plain").json()


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ("limit=0", "must be between 1 and 50 (got 0)"),
        ("limit=51", "must be between 1 and 50 (got 51)"),
        ("limit=ten", 'must be a whole number from 1 to 50, such as 10 or "10" (got "ten")'),
        ("limit=2.5", 'must be a whole number from 1 to 50, such as 10 or "10" (got "2.5")'),
        ("limit=1&limit=2", "given more than once; give it once"),
        ("top=3", "unknown parameter; this endpoint accepts limit"),
    ],
)
def test_a_bad_query_limit_is_worded_as_the_json_limit(client, query, detail):
    response = client.post(f"/api/match?{query}", data=LOG.encode(), content_type="text/plain")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["parameter"], error["detail"]) == (query.split("=")[0], detail)
