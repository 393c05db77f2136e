"""The hostile-input catalogue as MCP tool arguments, through the real server: every entry in
every text, list, number and choice argument of every tool (the SDK's client, in memory),
and in the JSON-RPC bodies of `tools/call` over HTTP (the ASGI app, raw bytes included:
search, get_incident, match_log, explain_error, and am_i_affected's keys and values).
Each call is a result or a tool error with a plain message (never a protocol crash, a
traceback or a validation dump), the client validates each result against the tool's
output schema, and the database is unchanged. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote_to_bytes

import pytest
from django.core.asgi import get_asgi_application
from django.test import override_settings
from mcp import Client
from starlette.testclient import TestClient

from mcp_server.http_app import build_asgi_app
from tests.mcp.conftest import TOOL_NAMES, InMemoryMcp
from tests.reliability.hostile import HOSTILE_TEXT, RAW_QUERY_VALUES, store_state

pytestmark = pytest.mark.django_db

TEXT, LIST, NUMBER, CHOICE, MAPPING = "text", "list", "number", "choice", "mapping"
# Every argument of every tool, by how a hostile value is put into it.
SLOTS: dict[str, dict[str, str]] = {
    "triage": {
        "symptoms": TEXT,
        "text": TEXT,
        "framework": TEXT,
        "accelerator": TEXT,
        "job": CHOICE,
        "scale": NUMBER,
        "limit": NUMBER,
    },
    "search_incidents": {
        "query": TEXT,
        "topic": TEXT,
        "symptom": LIST,
        "root_cause": TEXT,
        "component": LIST,
        "error_code": TEXT,
        "organization": TEXT,
        "accelerator": TEXT,
        "year": NUMBER,
        "exclude": LIST,
        "published_after": TEXT,
        "published_before": TEXT,
        "workload": TEXT,
        "scale": LIST,
        "min_accelerators": NUMBER,
        "max_accelerators": NUMBER,
        "min_nodes": NUMBER,
        "max_nodes": NUMBER,
        "limit": NUMBER,
        "cursor": TEXT,
        "facets": CHOICE,
    },
    "get_incident": {"id": TEXT, "fields": LIST},
    "list_incidents": {
        "topic": LIST,
        "symptom": TEXT,
        "root_cause": LIST,
        "component": TEXT,
        "error_code": LIST,
        "organization": LIST,
        "accelerator": LIST,
        "year": NUMBER,
        "exclude": LIST,
        "published_after": TEXT,
        "published_before": TEXT,
        "workload": LIST,
        "scale": TEXT,
        "min_accelerators": NUMBER,
        "max_accelerators": NUMBER,
        "min_nodes": NUMBER,
        "max_nodes": NUMBER,
        "sort": CHOICE,
        "limit": NUMBER,
        "cursor": TEXT,
        "facets": CHOICE,
    },
    "get_topic": {"slug": TEXT, "latest": NUMBER},
    "vocab": {"facet": CHOICE},
    "similar_incidents": {"id": TEXT, "limit": NUMBER},
    "match_log": {"text": TEXT, "limit": NUMBER},
    "explain_error": {"text": TEXT},
    "am_i_affected": {"versions": MAPPING},
}
# A valid value for each required argument, so the hostile one is what is judged.
REQUIRED = {
    "search_incidents": {"query": "nccl timeout"},
    "get_incident": {"id": "IL-0428"},
    "get_topic": {"slug": "training-hang"},  # "training" is a workload since the topic re-cut
    "similar_incidents": {"id": "IL-0428"},
    "match_log": {"text": "NCCL timeout"},
}
LEAKS = ("Traceback", 'File "/', "errors.pydantic.dev", "validation error for", "input_value=")


def test_every_tool_and_argument_is_in_the_catalogue_run():
    assert set(SLOTS) == TOOL_NAMES
    listed = {t.name: t for t in InMemoryMcp().run(lambda client: client.list_tools()).tools}
    for name, slots in SLOTS.items():
        assert set(slots) == set(listed[name].input_schema["properties"]), name


def placed(kind: str, value: str) -> Any:
    if kind == LIST:
        return [value]
    if kind == MAPPING:  # the value as a version and as a component's name
        # The SDK's client cannot serialise an object key holding a lone surrogate (a value
        # it sends as an escape): such a key goes as the client could send it.
        key = value.encode("utf-8", "replace").decode("utf-8")
        return {"NCCL": value, key: "2.19.3"}
    if kind == NUMBER:
        try:
            parsed = json.loads(value)
        except ValueError:
            return value
        # 1e309 and Infinity read as inf, NaN as nan: sent as the JSON numbers they spell.
        return parsed if isinstance(parsed, int | float) and not isinstance(parsed, bool) else value
    return value


def calls(value: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, slots in SLOTS.items():
        for argument, kind in slots.items():
            yield name, {**REQUIRED.get(name, {}), argument: placed(kind, value)}


def assert_clean_result(result, where: str) -> None:
    text = result.content[0].text if result.content else ""
    for leak in LEAKS:
        assert leak not in text, (where, text[:300])
    if result.is_error:
        assert result.structured_content is None and text.strip(), where
        assert len(text) < 2_000, (where, len(text))  # a message, not the value echoed back
    else:
        assert json.loads(text) == result.structured_content, where


@pytest.mark.parametrize("kind,value", HOSTILE_TEXT, ids=[k for k, _ in HOSTILE_TEXT])
def test_each_hostile_value_in_every_tool_argument_is_answered_cleanly(db, kind, value):
    before = store_state()

    async def run_all(client: Client) -> list[tuple[str, Any]]:
        answered = []
        for name, arguments in calls(value):
            answered.append((f"{name}({', '.join(arguments)})", await client.call_tool(name, arguments)))
        return answered

    for where, result in InMemoryMcp().run(run_all):
        assert_clean_result(result, f"{kind}: {where}")
    assert store_state() == before


# --- over HTTP: the JSON-RPC bodies a client sends, raw bytes included ----------------------

HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
MARKER = "@@VALUE@@"
# (tool, its arguments with MARKER where the raw value goes): a string argument, or a key
# and a value of am_i_affected's mapping (a key the SDK's client cannot send raw).
HTTP_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search_incidents", {"query": MARKER}),
    ("get_incident", {"id": MARKER}),
    ("match_log", {"text": MARKER}),
    ("explain_error", {"text": MARKER}),
    ("am_i_affected", {"versions": {"NCCL": MARKER}}),
    ("am_i_affected", {"versions": {MARKER: "2.19.3", "PyTorch": "2.1.0"}}),
]


@pytest.fixture
def http(settings) -> Iterator[TestClient]:
    # Hundreds of calls from one address: the rate limits (tests/mcp/test_rate_limits_over_http.py)
    # would refuse most of them.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {}}
    with override_settings(ALLOWED_HOSTS=["testserver"], MCP_ALLOWED_ORIGINS=[]):
        with TestClient(build_asgi_app(get_asgi_application())) as client:
            yield client


def tools_call_body(name: str, arguments: dict[str, Any], raw_value: bytes) -> bytes:
    """A tools/call request whose string at MARKER in `arguments` is `raw_value`, byte for
    byte."""
    envelope = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": name, "arguments": {**REQUIRED.get(name, {}), **arguments}},
    }
    return json.dumps(envelope).encode().replace(MARKER.encode(), raw_value)


def assert_clean_rpc(response, where: str) -> None:
    assert response.status_code < 500, (where, response.status_code)
    text = response.text
    for leak in LEAKS:
        assert leak not in text, (where, text[:300])
    body = response.json()
    assert body["jsonrpc"] == "2.0", where
    if "error" in body:
        assert isinstance(body["error"]["code"], int) and body["error"]["message"], where
    else:
        result = body["result"]
        assert result["content"][0]["type"] == "text", where
        if not result.get("isError"):
            assert json.loads(result["content"][0]["text"]) == result["structuredContent"], where


def escaped(value: str) -> bytes:
    """`value` as the inside of a JSON string (lone surrogates as \\u escapes)."""
    return json.dumps(value)[1:-1].encode()


ENCODED = [(kind, escaped(value)) for kind, value in HOSTILE_TEXT] + [
    (kind, unquote_to_bytes(raw)) for kind, raw in RAW_QUERY_VALUES
]


@pytest.mark.parametrize(
    "name,arguments", HTTP_CALLS, ids=[f"{name}:{json.dumps(args)}" for name, args in HTTP_CALLS]
)
def test_each_hostile_value_in_a_tools_call_over_http_is_answered_cleanly(http, name, arguments):
    before = store_state()
    for kind, raw in ENCODED:
        response = http.post("/mcp", content=tools_call_body(name, arguments, raw), headers=HEADERS)
        assert_clean_rpc(response, f"{name}({json.dumps(arguments)}) [{kind}]")
    assert store_state() == before
