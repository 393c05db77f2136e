"""How incidentlib's tools are registered, with the SDK's public API only.

- `register_tools(server, specs)` calls `MCPServer.add_tool` for each function: the name is
  the function's, the description its docstring, the annotations say it only reads.
- Each tool function returns a pydantic model. The registered callable is annotated
  `Annotated[CallToolResult, Model]` (the SDK's documented way to build the result yourself
  and still publish an output schema): the text content is the structured result as compact
  JSON (the SDK indents it, which costs an assistant a third more context for nothing),
  followed by a `resource_link` block per case the result names.
- A `ToolError` raised by a tool becomes an `isError` result carrying just its message.
- Sync tools run in the SDK's worker threads; Django never closes connections opened there,
  so `with_database` closes them after each call.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from django.db import DatabaseError, close_old_connections, connections
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, ResourceLink, TextContent, ToolAnnotations
from pydantic import BaseModel

from incidentlib.cache_errors import CACHE_ERRORS
from incidents.database_ready import database_problem, missing_database_file, set_up_hint
from incidents.encodable import encodable
from incidents.servers_cache import SharedCacheUnreachable

from .links import resource_links

logger = logging.getLogger(__name__)

# A cache server that does not answer, read or written: the client is told to try again.
_CACHE_FAILURES: tuple[type[Exception], ...] = (*CACHE_ERRORS, SharedCacheUnreachable)

# No destructive_hint or idempotent_hint: the specification gives both meaning only when
# read_only_hint is false (a tool that only reads changes nothing, however often it is
# called), and the tool list is read into every session's context (10 tools x 46 bytes).
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def with_database(fn: Callable[..., Any], *, error: type[Exception] = ToolError) -> Callable[..., Any]:
    """Run `fn` with fresh database connections and close them afterwards.

    A database or shared-cache failure becomes `error` (a message for the client, the
    traceback in the log) rather than an anonymous crash; so does a database that is not set
    up (`database_ready.database_problem`: what to run), a missing SQLite file before any
    connection, which would create it.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        missing = missing_database_file()
        if missing is not None:
            # Before connecting, which would create the file empty.
            raise error(f"The incident database is not set up: {missing}: {set_up_hint()}.")
        close_old_connections()
        try:
            return fn(*args, **kwargs)
        except DatabaseError as exc:
            logger.exception("database error in %s", fn.__name__)
            raise error(_database_problem()) from exc
        except _CACHE_FAILURES as exc:
            logger.exception("shared cache error in %s", fn.__name__)
            raise error("The site's shared cache did not answer; try again in a moment.") from exc
        finally:
            for conn in connections.all(initialized_only=True):
                if not conn.in_atomic_block:
                    conn.close()
                    _release_in_memory(conn)

    return wrapper


def _database_problem() -> str:
    """What a tool says when the database failed: that it was never migrated when so (waiting
    would not help), else that it did not answer."""
    try:
        missing = database_problem()
    except DatabaseError:
        missing = None
    if missing is not None:
        return f"The incident database is not set up: {missing}."
    return "The incident database did not answer; try again in a moment."


def _release_in_memory(conn: Any) -> None:
    """Close a worker thread's own connection to an in-memory SQLite database (the tests').

    Django ignores `close()` there (the last connection would take the database with it), so
    the connection would live until the garbage collector frees it, at any moment in another
    thread, possibly inside a SQLite callback of a query holding the shared-cache lock that
    freeing it needs: a deadlock. The main thread's connection keeps the database alive.
    """
    if (
        conn.vendor == "sqlite"
        and conn.is_in_memory_db()
        and conn.connection is not None
        and threading.current_thread() is not threading.main_thread()
    ):
        conn.connection.close()
        conn.connection = None


def resource_reader(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`with_database` for resources: database failures become a ResourceError."""
    return with_database(fn, error=ResourceError)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: the function (its name and docstring are the tool's), a title for people,
    and the byte budget of its JSON result (stated in the docstring, enforced by the tool)."""

    fn: Callable[..., BaseModel]
    title: str
    budget: int

    @property
    def name(self) -> str:
        return self.fn.__name__

    @property
    def description(self) -> str:
        return inspect.cleandoc(self.fn.__doc__ or "")


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def tool_result(model: BaseModel) -> CallToolResult:
    """The wire result of a tool: compact JSON text, resource links, structured content."""
    structured = model.model_dump(mode="json")
    links: list[ResourceLink] = resource_links(structured)
    return CallToolResult(
        content=[TextContent(type="text", text=compact_json(structured)), *links],
        structured_content=structured,
    )


def error_result(message: str) -> CallToolResult:
    """A tool error; a lone surrogate the message echoes from the arguments is written as
    its escape (`encodable`), so the JSON-RPC answer can always be encoded."""
    return CallToolResult(content=[TextContent(type="text", text=encodable(message))], is_error=True)


def as_tool(fn: Callable[..., BaseModel]) -> Callable[..., CallToolResult]:
    """`fn` as the callable the SDK registers: same parameters, a CallToolResult out."""
    signature = inspect.signature(fn, eval_str=True)
    database_fn = with_database(fn)

    @functools.wraps(fn)
    def call(**arguments: Any) -> CallToolResult:
        try:
            return tool_result(database_fn(**arguments))
        except ToolError as exc:
            return error_result(str(exc))

    # The SDK reads parameters and the output schema from this signature.
    call.__signature__ = signature.replace(  # type: ignore[attr-defined]
        return_annotation=Annotated[CallToolResult, signature.return_annotation]
    )
    return call


def register_tools(server: MCPServer, specs: tuple[ToolSpec, ...]) -> None:
    for spec in specs:
        server.add_tool(
            as_tool(spec.fn),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=READ_ONLY,
        )
