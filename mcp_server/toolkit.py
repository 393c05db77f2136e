"""How incidentlib's tools are registered: read-only, database-safe, with actionable errors.

- `read_only_tool(fn)` turns a plain function into an SDK `Tool` whose description is the
  function's docstring and whose annotations say it only reads.
- Sync tools run in the SDK's worker threads; Django never closes connections opened
  there, so `with_database` closes them after each call.
- The text content repeats the structured result as compact JSON (the SDK indents it,
  which costs an assistant about a third more context for nothing).
- Arguments that fail the input schema are refused with a message naming the argument and
  the allowed range or values (the SDK's default is a raw pydantic report); unknown
  argument names are refused instead of being silently ignored.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, close_old_connections, connections
from mcp.server.mcpserver.exceptions import ResourceError, ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ValidationError

from incidents.selectors.spelling import nearest_strings

logger = logging.getLogger(__name__)

READ_ONLY = ToolAnnotations(
    read_only_hint=True,
    destructive_hint=False,
    idempotent_hint=True,
    open_world_hint=False,
)


def with_database(fn: Callable[..., Any], *, error: type[Exception] = ToolError) -> Callable[..., Any]:
    """Run `fn` with fresh database connections and close them afterwards.

    A database failure becomes `error` (a message for the client, the traceback in the log)
    rather than an anonymous crash.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        close_old_connections()
        try:
            return fn(*args, **kwargs)
        except DatabaseError as exc:
            logger.exception("database error in %s", fn.__name__)
            raise error("The incident database did not answer; try again in a moment.") from exc
        finally:
            for conn in connections.all(initialized_only=True):
                if not conn.in_atomic_block:
                    conn.close()

    return wrapper


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) > 60:
        value = value[:60]  # a pasted megabyte need not be serialised to quote 60 characters
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _find(schema: dict[str, Any], key: str) -> Any:
    """The first `key` in a property schema, looking through anyOf branches and items."""
    if key in schema:
        return schema[key]
    for branch in [*schema.get("anyOf", []), schema.get("items", {})]:
        if isinstance(branch, dict) and (found := _find(branch, key)) is not None:
            return found
    return None


def describe_validation_error(exc: ValidationError, schema: dict[str, Any]) -> str:
    """One sentence per bad argument, naming the range or the allowed values."""
    properties = schema.get("properties", {})
    problems = []
    for error in exc.errors(include_url=False):
        loc = [str(part) for part in error["loc"]]
        name = loc[0] if loc else "arguments"
        where = name + "".join(f"[{part}]" for part in loc[1:])
        prop = properties.get(name, {})
        got = _short(error.get("input"))
        kind = error["type"]
        context = error.get("ctx") or {}
        if kind == "missing":
            problems.append(f"{where} is required")
        elif kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
            low, high = _find(prop, "minimum"), _find(prop, "maximum")
            if low is not None and high is not None:
                problems.append(f"{where} must be between {low} and {high} (got {got})")
            else:
                problems.append(f"{where}: {error['msg'].lower()} (got {got})")
        elif kind in ("literal_error", "enum"):
            values = _find(prop, "enum") or []
            problems.append(f"{where} must be one of {', '.join(map(str, values))} (got {got})")
        elif kind in ("string_too_long", "too_long"):
            unit = "characters" if kind == "string_too_long" else "items"
            problems.append(f"{where} is too long: at most {context.get('max_length')} {unit}")
        elif kind in ("string_too_short", "too_short"):
            problems.append(f"{where} must not be empty")
        else:
            problems.append(f"{where}: {error['msg']} (got {got})")
    return "Invalid arguments: " + "; ".join(problems) + "."


class IncidentTool(Tool):
    """An SDK tool that refuses bad arguments with messages an assistant can act on."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        known = self.parameters.get("properties", {})
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            hints = []
            for name in unknown:
                near = nearest_strings(name, known, limit=1)
                hints.append(f"{name!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
            raise ToolError(f"Unknown argument {', '.join(hints)}; {self.name} takes: {', '.join(known)}.")
        try:
            self.fn_metadata.validate_arguments(arguments)
        except ValidationError as exc:
            raise ToolError(describe_validation_error(exc, self.parameters)) from exc
        try:
            result = await super().run(arguments, context, convert_result)
        except UnexpectedToolError:
            raise
        except ToolError as exc:
            # The SDK prefixes "Error executing tool <name>: "; the caller knows the name.
            if isinstance(exc.__cause__, ToolError | ResourceError):
                raise ToolError(str(exc.__cause__)) from exc.__cause__
            raise
        if isinstance(result, CallToolResult) and result.structured_content is not None:
            text = json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
            result = result.model_copy(update={"content": [TextContent(type="text", text=text)]})
        return result


def read_only_tool(fn: Callable[..., Any], *, title: str) -> IncidentTool:
    """Register `fn` as a read-only tool named after it; its docstring is the description."""
    tool = IncidentTool.from_function(
        with_database(fn),
        name=fn.__name__,
        title=title,
        description=inspect.cleandoc(fn.__doc__ or ""),
        annotations=READ_ONLY,
    )
    tool.parameters["additionalProperties"] = False
    return tool  # type: ignore[return-value]  # built by the base class constructor


def resource_reader(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`with_database` for resources: database failures become a ResourceError."""
    return with_database(fn, error=ResourceError)
