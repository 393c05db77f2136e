"""The real server: uvicorn with two worker processes serving the site, the API and /mcp,
driven over Streamable HTTP by the SDK's client."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import anyio
import pytest
from mcp import Client

from incidents import search
from incidents.models import Case
from mcp_server.links import case_links
from tests.conftest import ids_quoting, load_fixture
from tests.mcp.conftest import TOOL_NAMES
from tests.mcp.test_arguments_that_are_not_an_object import LONE_ID_RESULT

# Marked so these run before transactional tests flush the session's cases (which the
# server reads from the same database).
pytestmark = pytest.mark.django_db


CALLS: dict[str, dict[str, Any]] = {
    "search_incidents": {"query": "CUDA_LAUNCH_BLOCKING", "limit": 3},
    "get_incident": {"id": "IL-0428", "fields": ["title", "root_cause"]},
    "list_incidents": {"organization": "BigScience", "sort": "oldest", "limit": 2},
    "get_topic": {"slug": "training-instability", "latest": 1},
    "vocab": {"facet": "topic"},
    "similar_incidents": {"id": "IL-0430", "limit": 2},
    "match_log": {"text": "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."},
}


PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def _post(url: str, headers: dict[str, str], message: dict[str, Any] = PING) -> tuple[int, str]:
    body = json.dumps(message).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_initialize_then_list_tools_with_input_and_output_schemas(base_url):
    async def session():
        async with Client(f"{base_url}/mcp", mode="legacy") as client:  # initialize handshake
            listed = await client.list_tools()
            return client.server_info, client.server_capabilities, listed.tools

    info, capabilities, tools = anyio.run(session)
    assert info.name == "incidentlib"
    assert capabilities.tools is not None and capabilities.resources is not None
    assert {tool.name for tool in tools} == TOOL_NAMES
    for tool in tools:
        assert tool.input_schema["type"] == "object" and tool.input_schema["properties"]
        assert tool.output_schema["type"] == "object" and tool.output_schema["properties"]
        assert tool.annotations.read_only_hint is True


def test_every_tool_answers_over_http(base_url):
    async def session():
        async with Client(f"{base_url}/mcp", mode="legacy") as client:
            return {name: await client.call_tool(name, arguments) for name, arguments in CALLS.items()}

    results = anyio.run(session)
    assert not any(result.is_error for result in results.values())
    out = {name: result.structured_content for name, result in results.items()}
    found = search.search_cases(query="CUDA_LAUNCH_BLOCKING", limit=3).hits
    assert [h["id"] for h in out["search_incidents"]["hits"]] == [h.case.id for h in found]
    assert out["search_incidents"]["hits"][0]["id"] in ids_quoting("CUDA_LAUNCH_BLOCKING")
    fixture = load_fixture("IL-0428")
    assert out["get_incident"] == {
        "id": "IL-0428",
        "title": fixture["title"],
        "root_cause": fixture["root_cause"],
        **case_links("IL-0428"),
    }
    oldest = Case.objects.published().filter(organization="BigScience").order_by("published")
    assert [c["id"] for c in out["list_incidents"]["incidents"]] == [c.id for c in oldest[:2]]
    assert out["get_topic"]["slug"] == "training-instability" and len(out["get_topic"]["latest_cases"]) == 1
    assert {t["slug"] for t in out["vocab"]["terms"]["topic"]} >= {"training-hang", "inference-outage"}
    similar = search.similar_cases(Case.objects.get(id="IL-0430"), limit=2, without_hand_linked=True)
    assert [s["id"] for s in out["similar_incidents"]["similar"]] == [s.case.id for s in similar]
    matched = search.match_log(CALLS["match_log"]["text"], limit=5)
    assert [h["id"] for h in out["match_log"]["hits"]] == [h.case.id for h in matched]
    assert out["match_log"]["hits"][0]["matched_lines"][0]["line_number"] == 1
    assert out["match_log"]["hits"][0]["matched_lines"][0]["terms"]


def test_a_case_resource_and_an_error_over_http(base_url):
    async def session():
        async with Client(f"{base_url}/mcp", mode="legacy") as client:
            resource = await client.read_resource("incident://IL-0428")
            missing = await client.call_tool("get_incident", {"id": "IL-0440"})
            return resource, missing

    resource, missing = anyio.run(session)
    (content,) = resource.contents
    assert content.mime_type == "text/markdown"
    assert content.text.startswith("# IL-0428: Test runs of 100B-200B models")
    assert missing.is_error
    assert missing.content[0].text.startswith("No incident 'IL-0440'. Closest ids: IL-0439")


def test_arguments_that_are_not_an_object_are_a_tool_error_over_http(base_url):
    # Stateless: no handshake, the protocol version in its header.
    call = {"name": "get_incident", "arguments": "IL-0428"}
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}
    status, body = _post(f"{base_url}/mcp", {"Mcp-Protocol-Version": "2025-06-18"}, message)
    assert (status, json.loads(body)) == (200, {"jsonrpc": "2.0", "id": 7, "result": LONE_ID_RESULT})


def test_stateless_requests_work_across_workers(base_url):
    async def one_client(results: list) -> None:
        async with Client(f"{base_url}/mcp") as client:  # the SDK's default mode
            for _ in range(5):
                result = await client.call_tool("get_incident", {"id": "428", "fields": ["id"]})
                results.append(result.structured_content)

    async def many() -> list:
        results: list = []
        async with anyio.create_task_group() as group:
            for _ in range(4):
                group.start_soon(one_client, results)
        return results

    assert anyio.run(many) == [{"id": "IL-0428", **case_links("IL-0428")}] * 20


def test_a_foreign_origin_or_host_is_refused(base_url):
    port = base_url.rsplit(":", 1)[1]
    status, body = _post(f"{base_url}/mcp", {"Origin": "http://evil.example"})
    assert (status, json.loads(body)["error"]["message"]) == (
        403,
        "Invalid Origin header: this origin may not call /mcp",
    )
    status, body = _post(f"{base_url}/mcp", {"Host": f"evil.example:{port}"})
    assert (status, json.loads(body)["error"]["message"]) == (
        421,
        "Invalid Host header: not one of this site's hosts",
    )
    status, body = _post(f"{base_url}/mcp", {"Origin": f"http://localhost:{port}"})
    assert status == 200 and json.loads(body)["id"] == 1


def test_the_site_and_the_api_are_served_by_the_same_process(base_url):
    with urllib.request.urlopen(f"{base_url}/api/cases/IL-0428", timeout=10) as response:
        payload = json.load(response)
    assert payload["title"] == load_fixture("IL-0428")["title"]
    # Django, mounted at "/" inside the Starlette app, still builds its own URLs right.
    assert payload["url"] == f"{base_url}/api/cases/IL-0428"
    with urllib.request.urlopen(f"{base_url}/cases/IL-0428", timeout=10) as response:
        assert "text/html" in response.headers["Content-Type"]


def test_empty_values_and_numbers_as_text_agree_over_http(base_url):
    """Real requests to the real server: an empty parameter or optional argument is not
    given, and `"limit": "2"` is 2, at the API and at /mcp alike."""
    log = CALLS["match_log"]["text"]

    def api(path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if body is not None else {}
        request = urllib.request.Request(f"{base_url}{path}", data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    listed = api("/api/cases/?organization=BigScience&sort=&page=&published_after=&fields=")
    assert listed == api("/api/cases/?organization=BigScience")
    matched = api("/api/match", {"text": log, "limit": "2"})
    assert matched == api("/api/match", {"text": log, "limit": 2})

    async def session():
        async with Client(f"{base_url}/mcp", mode="legacy") as client:
            blank = await client.call_tool(
                "list_incidents",
                {"organization": "BigScience", "sort": "", "published_after": "", "limit": "20"},
            )
            as_text = await client.call_tool("match_log", {"text": log, "limit": "2"})
            return blank.structured_content, as_text.structured_content

    blank, as_text = anyio.run(session)
    assert [case["id"] for case in blank["incidents"]] == [hit["id"] for hit in listed["results"]]
    assert [hit["id"] for hit in as_text["hits"]] == [hit["id"] for hit in matched["results"]]
