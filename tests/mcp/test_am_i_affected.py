"""am_i_affected (issue 15, point 3): the same selector as `POST /api/affected`, the same
answer, and the same problems as a tool error that names what would be accepted."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings

from incidents import selectors
from mcp_server.affected_tool import WORKAROUND_CHARS

pytestmark = pytest.mark.django_db

VERSIONS = {"NCCL": "2.19.3", "NVIDIA driver": "580.126.20", "torch": "2.10.0"}


def test_it_answers_as_post_api_affected(client, mcp):
    api = client.post("/api/affected", json.dumps(VERSIONS), content_type="application/json").json()
    result = mcp.ok("am_i_affected", versions=VERSIONS)
    assert (
        result["checked"]
        == api["checked"]
        == {
            "NCCL": "2.19.3",
            "NVIDIA driver": "580.126.20",
            "PyTorch": "2.10.0",
        }
    )
    found = [(m["id"], m["component"], m["version"], m["why"], m["fixed"]) for m in result["affected"]]
    assert found == [
        ("IL-0605", "NVIDIA driver", "580.126.20", "580.126.20 is listed as affected", None),
        ("IL-0615", "PyTorch", "2.10.0", "2.10 is listed as affected", None),
        ("IL-0604", "NCCL", "2.19.3", "introduced 0 <= 2.19.3 < fixed 2.23.4", "2.23.4"),
        ("IL-0518", "NCCL", "2.19.3", "2.19.3 is listed as affected", None),
        ("IL-0602", "NCCL", "2.19.3", "2.19.3 is listed as affected", "2.20.3"),
        ("IL-0567", "NCCL", "2.19.3", "2.19.3 is listed as affected", None),
    ]
    assert found == [
        (m["case"]["id"], m["component"], m["version"], m["why"], m["fixed"]) for m in api["affected"]
    ]
    a2a = result["affected"][4]
    assert a2a["range"] == {
        "component": "NCCL",
        "versions": ["2.19.1", "2.19.3", "2.19.4"],
        "introduced": "2.19.1",
        "fixed": "2.20.3",
        "last_affected": None,
    }
    assert a2a["url"] == settings.SITE_URL + "/api/cases/IL-0602"
    assert a2a["html_url"] == settings.SITE_URL + "/cases/IL-0602"
    for entry, match in zip(result["affected"], api["affected"], strict=True):
        workaround = match["workaround"]
        if len(workaround) <= WORKAROUND_CHARS:
            assert entry["workaround"] == workaround
        else:  # cut to keep the answer bounded, marked as cut
            assert entry["workaround"] == workaround[: WORKAROUND_CHARS - 1] + "…"
    assert result["unknown"] == [] and result["notes"] == [] and result["truncated"] is False


def test_each_case_comes_as_a_resource_link(mcp):
    result = mcp.call("am_i_affected", versions={"nccl": "2.19.3"})
    links = [block.uri for block in result.content[1:]]
    assert [str(uri) for uri in links] == [
        "incident://IL-0604",
        "incident://IL-0518",
        "incident://IL-0602",
        "incident://IL-0567",
    ]


def test_versions_no_case_holds_say_so(mcp):
    assert mcp.ok("am_i_affected", versions={"CUDA": "12.4"}) == {
        "checked": {"CUDA": "12.4"},
        "affected": [],
        "unknown": [],
        "notes": ["No published case lists these versions as affected."],
        "truncated": False,
    }


def test_an_unknown_component_and_a_version_with_no_order_name_what_would_work(mcp):
    message = mcp.error("am_i_affected", versions={"NCCLX": "2.19.3", "NCCL": "two", "PyTorch": "2.1.0"})
    components = ", ".join(selectors.component_names())
    assert message == (
        "Unknown component 'NCCLX' (nearest: NCCL). 'NCCL': 'two' is not a version that can be "
        "compared (e.g. 2.18.1, 535.104.05). Components (name, slug or synonym, any case): "
        f"{components}."
    )
    assert components.startswith("apex FusedAdam, Checkpointing, Container runtime, CPU, CUDA")
    # A version alone is wrong: no list of components then.
    assert mcp.error("am_i_affected", versions={"NCCL": "two"}) == (
        "'NCCL': 'two' is not a version that can be compared (e.g. 2.18.1, 535.104.05)."
    )


def test_two_keys_naming_one_component_are_a_tool_error_naming_both(mcp):
    assert mcp.error("am_i_affected", versions={"NCCL": "2.19.3", "nccl ": "2.30.0"}) == (
        "'nccl ': names the same component (NCCL) as 'NCCL'; give each component once."
    )


def test_long_values_are_quoted_back_cut(mcp):
    message = mcp.error("am_i_affected", versions={"x" * 5000: "1.0"})
    assert message.startswith("Unknown component '" + "x" * 59 + "…'.")
    assert len(message) < 1000


def test_bad_shapes_are_refused_before_the_tool_runs(mcp):
    assert mcp.error("am_i_affected", versions={}) == "Invalid arguments: versions must not be empty."
    assert mcp.error("am_i_affected", versions={"NCCL": 2.19}) == (
        f'Invalid arguments: versions: send {WANTED} (got {{"NCCL": 2.19}}).'
    )
    # A `pip freeze` lists a few hundred packages: the bound is MAX_ENTRIES, not 20.
    many = {f"c{i}": "1.0" for i in range(501)}
    assert mcp.error("am_i_affected", versions=many) == (
        "Invalid arguments: versions is too long: at most 500 items."
    )


WANTED = 'a JSON object of component -> version strings, such as {"NCCL": "2.19.3"}'


@pytest.mark.parametrize(
    "versions, detail",
    [
        ("", "must not be empty: send " + WANTED),
        ("  ", "must not be empty (it holds only spaces): send " + WANTED),
        ("NCCL 2.19.3", "send " + WANTED),
        (["NCCL", "2.19.3"], "send " + WANTED),
    ],
)
def test_a_versions_value_that_is_no_object_says_what_post_api_affected_says(client, mcp, versions, detail):
    # `"versions": ""` was answered with pydantic's "Input should be a valid dictionary" (a new
    # user's walkthrough), where POST /api/affected says it must not be empty and what it takes.
    api = client.post("/api/affected", json.dumps({"versions": versions}), content_type="application/json")
    assert api.json()["errors"] == [{"parameter": "versions", "detail": detail}]
    message = mcp.error("am_i_affected", versions=versions)
    assert message == f"Invalid arguments: versions: {detail} (got {json.dumps(versions)})."


def test_past_its_budget_the_answer_keeps_whole_cases_and_says_where_all_are(mcp, monkeypatch):
    monkeypatch.setattr("mcp_server.affected_tool.AFFECTED_BUDGET", 2_000)
    result = mcp.ok("am_i_affected", versions=VERSIONS)
    kept = len(result["affected"])
    assert 0 < kept < 6 and result["truncated"] is True
    assert result["notes"] == [
        f"Cut to the budget after {kept} of 6 cases: POST /api/affected with the same versions returns all."
    ]


def test_an_epoch_and_a_pip_pin_answer_as_the_plain_version_at_every_door(client, mcp):
    """`1:2.19.3` (a Debian epoch, left out of the comparison) and `==2.10.0` (pip's pin) are
    the plain versions at the API, MCP and the form; `checked` shows what was compared."""
    plain = client.post("/api/affected", json.dumps(VERSIONS), content_type="application/json").json()
    spelt = {"NCCL": "1:2.19.3", "NVIDIA driver": "1:580.126.20", "torch": "==2.10.0"}
    api = client.post("/api/affected", json.dumps({"versions": spelt}), content_type="application/json")
    assert api.status_code == 200, api.content
    result = mcp.ok("am_i_affected", versions=spelt)
    checked = {"NCCL": "1:2.19.3", "NVIDIA driver": "1:580.126.20", "PyTorch": "2.10.0"}
    assert api.json()["checked"] == result["checked"] == checked
    ids = [m["case"]["id"] for m in plain["affected"]]
    assert len(ids) == 6
    assert [m["case"]["id"] for m in api.json()["affected"]] == [m["id"] for m in result["affected"]] == ids
    assert [m["why"] for m in api.json()["affected"]][:2] == [
        "580.126.20 is listed as affected",
        "2.10 is listed as affected",
    ]
    form = client.get("/affected/", {"versions": "nccl 1:2.19.3\nnvidia-driver=1:580.126.20\ntorch==2.10.0"})
    assert form.status_code == 200
    assert re.findall(r'<span class="case-id">(IL-\d+)</span>', form.content.decode()) == ids
