"""Protocol behaviour the specification asks for: -32602 for bad prompt requests (no
traceback logged), `logging/setLevel`, capabilities that agree between `initialize` and
`server/discover`, `resources/list` with every topic and case, paginated."""

from __future__ import annotations

import logging

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS

from incidents import selectors
from incidents.models import Case, Facet
from mcp_server.resource_list import PAGE_SIZE
from mcp_server.server import build_server

MODES = ["legacy", "2026-07-28"]


def run(mode: str, action):
    async def main():
        async with Client(build_server(), mode=mode) as client:
            return await action(client)

    return anyio.run(main)


def protocol_error(mode: str, action) -> MCPError:
    async def attempt(client):
        try:
            await action(client)
        except MCPError as error:
            return error
        raise AssertionError("no protocol error")

    return run(mode, attempt)


@pytest.mark.parametrize("mode", MODES)
def test_a_prompt_without_its_argument_is_invalid_params_naming_it(db, mode, caplog):
    with caplog.at_level(logging.DEBUG):
        error = protocol_error(mode, lambda client: client.get_prompt("triage", {}))
    assert error.code == INVALID_PARAMS
    assert error.message == (
        "Prompt 'triage' needs the argument 'symptoms': What is failing, in words: the error text, "
        "what hung, at what scale."
    )
    assert "Traceback" not in caplog.text and not any(r.exc_info for r in caplog.records)


@pytest.mark.parametrize("mode", MODES)
def test_an_unknown_prompt_is_invalid_params_listing_the_prompts(db, mode, caplog):
    with caplog.at_level(logging.DEBUG):
        error = protocol_error(mode, lambda client: client.get_prompt("triag", {"symptoms": "hang"}))
    assert (error.code, error.message) == (INVALID_PARAMS, "Unknown prompt 'triag'. Prompts: triage.")
    assert not any(r.exc_info for r in caplog.records)


def test_prompt_arguments_are_described_and_the_description_is_dedented(db):
    (prompt,) = run("legacy", lambda client: client.list_prompts()).prompts
    assert all(argument.description for argument in prompt.arguments)
    assert "\n    " not in prompt.description and prompt.description.startswith("Turn a symptom")


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
def test_logging_set_level_is_accepted_and_advertised(db):
    async def session(client):
        answer = await client.set_logging_level("error")
        return client.server_capabilities, answer

    try:
        capabilities, answer = run("legacy", session)
        assert capabilities.logging is not None
        assert logging.getLogger("mcp_server").level == logging.ERROR
    finally:
        logging.getLogger("mcp_server").setLevel(logging.NOTSET)
        logging.getLogger("incidents").setLevel(logging.NOTSET)


def test_capabilities_agree_between_initialize_and_discover(db):
    async def capabilities(client):
        return client.server_capabilities

    legacy, modern = run("legacy", capabilities), run("auto", capabilities)  # auto: server/discover
    for answer in (legacy, modern):
        assert answer.tools.list_changed is False
        assert answer.prompts.list_changed is False
        assert answer.resources.list_changed is False
        assert answer.resources.subscribe is False


@pytest.mark.parametrize("mode", MODES)
def test_resources_list_pages_through_topics_then_cases(db, mode):
    async def every_page(client):
        pages, cursor = [], None
        while True:
            result = await client.list_resources(cursor=cursor)
            pages.append(result.resources)
            cursor = result.next_cursor
            if not cursor:
                return pages

    pages = run(mode, every_page)
    topics = [t.slug for t in selectors.vocabulary(Facet.TOPIC)]
    cases = list(Case.objects.published().order_by("id").values_list("id", "title"))
    listed = [resource for page in pages for resource in page]
    assert [str(r.uri) for r in listed] == [f"topic://{slug}" for slug in topics] + [
        f"incident://{case_id}" for case_id, _ in cases
    ]
    assert all(len(page) <= PAGE_SIZE for page in pages)
    assert listed[len(topics)].title == cases[0][1]
    assert {r.mime_type for r in listed} == {"text/markdown"}


def test_a_bad_resources_cursor_is_invalid_params(db):
    error = protocol_error("legacy", lambda client: client.list_resources(cursor="nope"))
    assert error.code == INVALID_PARAMS and error.message.startswith("Invalid cursor: ")
