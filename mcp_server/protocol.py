"""Protocol-level behaviour the SDK leaves to the server, as one `Server.middleware` callable
(the SDK's public hook for observing, refusing or rewriting messages):

- `prompts/get` with an unknown prompt, a missing argument or one the prompt does not take
  is a -32602 error naming it, and the argument meant (`logs` -> `text`, `spelling.names_meant`)
  (the SDK answers -32603 "Internal server error" and logs a traceback, or "Error rendering
  prompt" for an unknown argument);
- `logging/setLevel` (handshake-era protocol versions) sets the level of this server's
  loggers, and `initialize` advertises the `logging` capability;
- `resources/list` lists every topic and published case, 100 per page with `nextCursor`;
- a request for a method the server does not serve (`tools/cal`) is still -32601 "Method
  not found" with the method as `data`, but the message names the nearest methods it
  serves (`SERVED_METHODS`, which a test compares with what the SDK answers);
- `tools/list` is kept under 16 KB (it is read into an assistant's context on every
  session): pydantic's generated `title` keys go; output schemas give each top-level field
  and its JSON type, list items their field names (the tool's description says what they
  hold; `get_incident`'s fields are typed in `case.schema.json`); each input schema is closed
  (`additionalProperties: false`, as the argument check enforces).
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from incidents.selectors.spelling import names_meant, nearest_strings

from .resource_list import resource_page
from .toolkit import with_database

# The protocol's syslog levels, mapped onto Python's.
LOG_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
SERVER_LOGGERS = ("mcp_server", "incidents")
# The request methods this server answers (the SDK lists them nowhere public); a method
# missing from every one of them is -32601 naming the nearest of these.
SERVED_METHODS = (
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "server/discover",
)
# Generated titles say nothing the property name does not. Output fields are explained in the
# tool's description, which the model reads anyway; their schema keeps only names and types.
INPUT_NOISE = frozenset({"title"})
OUTPUT_NOISE = frozenset({"title", "description", "default", "required"})


def strip_keys(node: Any, keys: frozenset[str]) -> Any:
    """A JSON schema without the annotation `keys` (e.g. title, description) at any depth;
    property names are kept even when they are spelled like one of them."""
    if isinstance(node, dict):
        return {
            key: (
                _strip_properties(value, keys) if key in ("properties", "$defs") else strip_keys(value, keys)
            )
            for key, value in node.items()
            if not (key in keys and isinstance(value, str | bool | int | list))
            and not (key == "default" and value is None)
        }
    if isinstance(node, list):
        return [strip_keys(value, keys) for value in node]
    return node


SCALARS = ("string", "integer", "number", "boolean")


def _plain_types(branches: Any) -> bool:
    """Whether `branches` are types alone (an array's `items` allowed), each type once."""
    if not isinstance(branches, list) or len(branches) < 2:
        return False
    if not all(
        isinstance(b, dict) and set(b) <= {"type", "items"} and isinstance(b.get("type"), str)
        for b in branches
    ):
        return False
    types = [b["type"] for b in branches]
    return len(set(types)) == len(types) and types.count("array") <= 1


def collapse_nullable(node: Any, kinds: tuple[str, ...] = SCALARS) -> Any:
    """`{"anyOf": [{"type": "string", ...}, {"type": "null"}]}` as `{"type": ["string", "null"],
    ...}`: the same schema in half the bytes."""
    if isinstance(node, list):
        return [collapse_nullable(value, kinds) for value in node]
    if not isinstance(node, dict):
        return node
    node = {key: collapse_nullable(value, kinds) for key, value in node.items()}
    branches = node.get("anyOf")
    if _plain_types(branches):
        # [{"type": "string"}, {"type": "array", "items": {...}}, {"type": "null"}]
        rest = {key: value for key, value in node.items() if key != "anyOf"}
        merged: dict[str, Any] = {"type": [branch["type"] for branch in branches]}
        merged.update(item for branch in branches for item in branch.items() if item[0] == "items")
        return {**merged, **rest}
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        (other,) = [branch for branch in branches if branch != {"type": "null"}]
        if isinstance(other, dict) and other.get("type") in kinds:
            rest = {key: value for key, value in node.items() if key != "anyOf"}
            # A closed set that may be left out: null joins the values (`enum` is checked
            # on its own, so it must name null for null to pass).
            enum = {"enum": [*other["enum"], None]} if "enum" in other else {}
            return {**other, **rest, **enum, "type": [other["type"], "null"]}
    return node


def name_only_definitions(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with each `$defs` entry reduced to its field names (any value): list
    items keep their field names, at a third of the bytes. A definition referenced once is
    written in place of its `$ref`; one referenced only from fields reduced away (a triage
    case's `why`) goes."""
    definitions = schema.get("$defs")
    if not isinstance(definitions, dict):
        return schema
    top = {key: value for key, value in schema.items() if key != "$defs"}
    # `properties` alone says an item is an object with these fields (16 bytes less a list,
    # 23 lists in the tool list).
    named: dict[str, dict[str, Any]] = {
        name: {"properties": dict.fromkeys(definition.get("properties", {}), {})}
        for name, definition in definitions.items()
    }
    text = json.dumps(top)
    uses = {name: text.count(f'"#/$defs/{name}"') for name in named}
    top = _inline_refs(top, {name: named[name] for name, count in uses.items() if count == 1})
    shared = {name: named[name] for name, count in uses.items() if count > 1}
    return {**top, "$defs": shared} if shared else top


def _inline_refs(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline_refs(value, definitions) for value in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.removeprefix("#/$defs/") in definitions and len(node) == 1:
        return definitions[ref.removeprefix("#/$defs/")]
    return {key: _inline_refs(value, definitions) for key, value in node.items()}


def _strip_properties(properties: Any, keys: frozenset[str]) -> Any:
    if not isinstance(properties, dict):
        return strip_keys(properties, keys)
    return {name: strip_keys(schema, keys) for name, schema in properties.items()}


class ProtocolMiddleware:
    def __init__(self, server: MCPServer) -> None:
        self.server = server
        self.read_resources = with_database(resource_page)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        method, params = ctx.method, dict(ctx.params or {})
        legacy = ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS
        if method == "prompts/get":
            await self._check_prompt(params)
        elif method == "logging/setLevel" and legacy:
            return self._set_level(params)
        try:
            result = await call_next(ctx)
        except MCPError as error:
            if error.error.code == METHOD_NOT_FOUND and method not in SERVED_METHODS:
                raise self.method_not_found(method, error) from None
            raise
        if not isinstance(result, dict):
            return result
        if method == "initialize":
            result.setdefault("capabilities", {})["logging"] = {}
        elif method == "tools/list":
            result["tools"] = [self._compact_tool(tool) for tool in result.get("tools", [])]
        elif method == "resources/list":
            resources, cursor = await anyio.to_thread.run_sync(self.read_resources, params.get("cursor"))
            result["resources"] = resources
            if cursor:
                result["nextCursor"] = cursor
        return result

    @staticmethod
    def method_not_found(method: str, error: MCPError) -> MCPError:
        """The SDK's -32601 for `method` (its `data`, the method, kept), with a message naming
        the nearest methods served (`tools/cal` -> `tools/call`), or all of them when none is
        near: "Method not found: 'tools/cal'. Did you mean 'tools/call'?"."""
        near = nearest_strings(method, SERVED_METHODS, limit=2)
        hint = (
            "Did you mean " + " or ".join(repr(name) for name in near) + "?"
            if near
            else "Methods served: " + ", ".join(SERVED_METHODS) + "."
        )
        return MCPError(
            code=METHOD_NOT_FOUND, message=f"Method not found: {method!r}. {hint}", data=error.error.data
        )

    async def _check_prompt(self, params: dict[str, Any]) -> None:
        name = params.get("name")
        prompts = {prompt.name: prompt for prompt in await self.server.list_prompts()}
        prompt = prompts.get(name) if isinstance(name, str) else None
        if prompt is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Unknown prompt {name!r}. Prompts: {', '.join(prompts)}.",
            )
        given = params.get("arguments") or {}
        known = [argument.name for argument in prompt.arguments or []]
        unknown = [str(key) for key in given if key not in known] if isinstance(given, dict) else []
        if unknown:
            # As a tool's unknown argument: the name it stands for (`logs` -> `text`), else a slip.
            near = names_meant(unknown[0], known, limit=1)
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"Prompt {name!r} has no argument {unknown[0]!r}"
                + (f" (did you mean {near[0]!r}?)" if near else "")
                + f"; it takes: {', '.join(known)}.",
            )
        for argument in prompt.arguments or []:
            value = given.get(argument.name)
            if argument.required and (not isinstance(value, str) or not value.strip()):
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"Prompt {name!r} needs the argument {argument.name!r}: {argument.description}",
                )

    @staticmethod
    def _set_level(params: dict[str, Any]) -> dict[str, Any]:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"level must be one of {', '.join(LOG_LEVELS)} (got {level!r}).",
            )
        for name in SERVER_LOGGERS:
            logging.getLogger(name).setLevel(LOG_LEVELS[level])
        return {}

    @staticmethod
    def _compact_tool(tool: dict[str, Any]) -> dict[str, Any]:
        tool = {**tool}
        if isinstance(tool.get("inputSchema"), dict):
            # An optional list (`exclude`, `fields`) too: its items and bounds apply to arrays only.
            schema = collapse_nullable(strip_keys(tool["inputSchema"], INPUT_NOISE), (*SCALARS, "array"))
            tool["inputSchema"] = {**schema, "additionalProperties": False}
        if isinstance(tool.get("outputSchema"), dict):
            schema = tool["outputSchema"]
            compact = collapse_nullable(
                name_only_definitions(strip_keys(schema, OUTPUT_NOISE)), (*SCALARS, "object", "array")
            )
            # Every field of a result is always there, but for get_incident's: only `id`.
            if len(schema.get("required", [])) == 1:
                compact["required"] = schema["required"]
            tool["outputSchema"] = compact
        return tool
