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
