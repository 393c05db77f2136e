"""Am I affected? by pip's names, at every door: `nvidia-nccl-cu12` and `torch` are NCCL and
PyTorch (synonyms in fixtures/vocab.json), and a pasted `pip freeze` answers for the
components it holds, naming the lines it skipped (`numpy`), where it was refused whole. A
JSON object naming no component is still a 400, with the nearest names."""

from __future__ import annotations

import json
import re

import pytest

from tests.mcp.conftest import InMemoryMcp

pytestmark = pytest.mark.django_db

FREEZE = "numpy==1.26.4\nnvidia-nccl-cu12==2.19.3\ntorch==2.2.1\ntriton==2.2.0\n"


def post(client, body):
    return client.post("/api/affected", json.dumps(body), content_type="application/json")


def ids(body) -> list[str]:
    return [m["case"]["id"] for m in body["affected"]]


def test_pip_names_are_the_components(client):
    # Before: 400, "nvidia-nccl-cu12: unknown component", no suggestion.
    response = post(client, {"nvidia-nccl-cu12": "2.18.1", "torch": "2.1.0"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["checked"] == {"NCCL": "2.18.1", "PyTorch": "2.1.0"}
    assert body["skipped"] == []
    assert ids(body) == ids(post(client, {"NCCL": "2.18.1", "PyTorch": "2.1.0"}).json())
    for name in ("nvidia-nccl-cu11", "nvidia_nccl_cu13", "NVIDIA-NCCL-CU12"):
        assert post(client, {name: "2.18.1"}).json()["checked"] == {"NCCL": "2.18.1"}, name


def test_the_api_answers_for_the_known_keys_and_lists_the_others(client):
    response = post(client, {"numpy": "1.26.4", "nvidia-nccl-cu12": "2.19.3", "torch": "2.2.1"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["checked"] == {"NCCL": "2.19.3", "PyTorch": "2.2.1"}
    assert body["skipped"] == [{"parameter": "numpy", "detail": "unknown component", "value": "numpy"}]
    expected = ids(post(client, {"NCCL": "2.19.3", "PyTorch": "2.2.1"}).json())
    assert {"IL-0518", "IL-0602"} <= set(expected)
    assert ids(body) == expected


def test_a_json_object_naming_no_component_is_a_400_with_the_nearest_names(client):
    response = post(client, {"nvidia-nccl-cu14": "2.18.1", "numpy": "1.26.4"})
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["parameter"], e["detail"]) for e in errors] == [
        ("nvidia-nccl-cu14", "unknown component"),
        ("numpy", "unknown component"),
    ]
    assert errors[0]["suggestions"][0] == "NCCL"  # near `nvidia-nccl-cu12`
    assert "suggestions" not in errors[1]


def test_a_version_with_no_order_still_stops_the_check(client):
    # A known component's version is the sender's to fix: answering without it would look
    # like "not affected".
    response = post(client, {"numpy": "1.26.4", "torch": "latest"})
    assert response.status_code == 400
    assert [e["parameter"] for e in response.json()["errors"]] == ["numpy", "torch"]


def test_the_form_answers_a_pasted_pip_freeze_and_names_the_lines_it_skipped(client):
    # Before: 400, the whole check refused for numpy's line.
    response = client.get("/affected/", {"versions": FREEZE})
    assert response.status_code == 200, response.content.decode()
    page = response.content.decode()
    api = post(client, {"nvidia-nccl-cu12": "2.19.3", "torch": "2.2.1"}).json()
    assert re.findall(r'<span class="case-id">(IL-\d+)</span>', page) == ids(api)
    # The list is of the lines not checked: "the others were:" before it said the opposite.
    assert '<div class="notice" role="status"><p>Not checked, 2 lines (the rest were checked):</p>' in page
    assert "<li>numpy: unknown component</li><li>triton: unknown component</li>" in page


def test_the_form_answers_the_lines_before_its_limit(client):
    text = FREEZE + "".join(f"package-{n}==1.0.{n}\n" for n in range(300))
    first_unread = text[:4000].count("\n") + 1  # the line the limit cuts is not read
    page = client.get("/affected/", {"versions": text}).content.decode()
    assert f"lines {first_unread} on were not read: at most 4,000 characters are read" in page
    api = post(client, {"nvidia-nccl-cu12": "2.19.3", "torch": "2.2.1"}).json()
    assert re.findall(r'<span class="case-id">(IL-\d+)</span>', page) == ids(api)


def test_mcp_answers_as_the_api_and_names_what_it_skipped(client):
    versions = {"numpy": "1.26.4", "nvidia-nccl-cu12": "2.19.3", "torch": "2.2.1", "NCCLX": "2.0"}
    api = post(client, versions).json()
    result = InMemoryMcp().ok("am_i_affected", versions=versions)
    assert result["checked"] == api["checked"] == {"NCCL": "2.19.3", "PyTorch": "2.2.1"}
    assert [m["id"] for m in result["affected"]] == ids(api)
    assert result["notes"] == ["Not checked, no component by these names: 'numpy', 'NCCLX' (nearest: NCCL)."]
    assert [(e["parameter"], e.get("suggestions")) for e in api["skipped"]] == [
        ("numpy", None),
        ("NCCLX", ["NCCL"]),
    ]


def test_a_partial_answer_runs_the_same_queries(client, django_assert_num_queries):
    # The component terms, the cases with a range for one of them, their terms: skipping a
    # key reads nothing more.
    with django_assert_num_queries(3):
        assert post(client, {"numpy": "1.26.4", "nvidia-nccl-cu12": "2.19.3"}).status_code == 200
