"""A suggestion is a close spelling, not letters in common, at every door.

`/api/codes/nope` answered "Did you mean ENOSPC?": by difflib's ratio `nope` and `enospc` share
`n`, `o`, `p` in order (0.6, the cut-off), though three slips from four characters typed is
another word. Closeness is now counted in slips (`selectors.spelling.closeness`: a letter
wrong, missing or extra, two neighbours swapped; one per four characters typed) or one
spelling holding the other, for the vocabulary's terms (codes, topics, filters) and the
components `POST /api/affected` names alike.
"""

from __future__ import annotations

import json

import pytest

from incidents.affected import ComponentIndex
from incidents.selectors.spelling import closeness
from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("typed", "spelling", "close"),
    [
        ("nope", "enospc", 0.0),  # letters in common, three slips
        ("xid-97", "xid-74", 0.0),  # both digits wrong
        ("xid-97", "xid-79", 1 - 1 / 6),  # two neighbours swapped
        ("trainig-hang", "training hang", 1 - 1 / 13),
        ("ncl", "NCCL", 0.75),
        ("nccl", "nccl-shm-segment-failure", 0.9),  # held whole
        ("NCCL timeout", "nccl_timeout", 1.0),  # the same spelling
    ],
)
def test_closeness_counts_slips_not_letters_in_common(typed, spelling, close):
    assert closeness(typed, spelling) == pytest.approx(close)


def test_an_unknown_code_names_no_code_when_none_is_close(client):
    problem = client.get("/api/codes/nope").json()
    assert (problem["status"], problem["detail"]) == (404, "No error code called “nope”.")
    assert problem["errors"] == [
        {"parameter": "slug", "detail": "unknown error code 'nope'", "value": "nope"}
    ]
    page = client.get("/codes/nope")
    assert page.status_code == 404
    assert "No error code called “nope”." in page.content.decode()
    assert "ENOSPC" not in page.content.decode()
    [error] = client.get("/api/cases/", {"error_code": "nope"}).json()["errors"]
    assert "suggestions" not in error


def post(client, versions):
    return client.post("/api/affected", json.dumps({"versions": versions}), content_type="application/json")


def test_an_unknown_component_names_the_close_components_at_every_door(client):
    assert ComponentIndex.load().closest("nope") == ()
    assert post(client, {"nope": "1.0"}).json()["errors"] == [
        {"parameter": "nope", "detail": "unknown component", "value": "nope"}
    ]
    assert post(client, {"ncl": "2.19.3"}).json()["errors"] == [
        {"parameter": "ncl", "detail": "unknown component", "value": "ncl", "suggestions": ["NCCL"]}
    ]
    # The filter of the same name suggests the same component.
    [error] = client.get("/api/cases/", {"component": "ncl"}).json()["errors"]
    assert error["suggestions"] == ["nccl"]
    page = client.get("/affected/", {"versions": "ncl 2.19.3"}).content.decode()
    assert "<li>ncl: unknown component (nearest: NCCL)</li>" in page
    assert (
        InMemoryMcp()
        .error("am_i_affected", versions={"ncl": "2.19.3"})
        .startswith("Unknown component 'ncl' (nearest: NCCL).")
    )
