"""Tool calls with a wrong tool name or wrong arguments are refused before the tool runs, with
a message an assistant can act on (the SDK's default is a raw pydantic report, and it
silently ignores unknown argument names).

Plugged in through the SDK's public `Extension.intercept_tool_call` hook, which wraps the
`tools/call` handler and returns results in the protocol's envelope.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.types import CallToolRequestParams
from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from incidents.selectors.spelling import nearest_strings

from .toolkit import ToolSpec, error_result


@dataclass(frozen=True)
class ArgumentCheck:
    """A tool's arguments as a pydantic model (from its signature) and its JSON schema."""

    name: str
    model: type[BaseModel]
    schema: dict[str, Any]

    @classmethod
    def of(cls, spec: ToolSpec) -> ArgumentCheck:
        fields: dict[str, Any] = {}
        for parameter in inspect.signature(spec.fn, eval_str=True).parameters.values():
            default = ... if parameter.default is inspect.Parameter.empty else parameter.default
            fields[parameter.name] = (parameter.annotation, default)
        model = create_model(f"{spec.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        return cls(name=spec.name, model=model, schema=model.model_json_schema())

    def problem(self, arguments: dict[str, Any]) -> str | None:
        """Why `arguments` cannot be passed to the tool, or None when they can."""
        known = list(self.schema.get("properties", {}))
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            hints = []
            for name in unknown:
                near = nearest_strings(name, known, limit=1)
                hints.append(f"{name!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
            return f"Unknown argument {', '.join(hints)}; {self.name} takes: {', '.join(known)}."
        try:
            self.model.model_validate(self.as_the_sdk_reads(arguments))
        except ValidationError as exc:
            return describe_validation_error(exc, self.schema)
        return None

    def as_the_sdk_reads(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """`arguments` as the SDK will pass them: a string argument of a parameter that is
        not plain `str` is read as JSON when it holds an object, an array, true, false or
        null (`FuncMetadata.pre_parse_json`, for clients that send lists as text), so
        `'{"$gt": ""}'` for `framework` arrives as an object and must be judged as one."""
        read = dict(arguments)
        for name, value in arguments.items():
            field = self.model.model_fields.get(name)
            if field is None or not isinstance(value, str) or field.annotation is str:
                continue
            try:
                parsed = json.loads(value)
            except (ValueError, RecursionError):
                continue
            if not isinstance(parsed, str | int | float):
                read[name] = parsed
        return read


class CheckedArguments(Extension):
    """Refuses unknown tools (naming the real ones) and bad arguments before a tool runs."""

    identifier = "dev.incidentlib/checked-arguments"

    def __init__(self, specs: tuple[ToolSpec, ...]) -> None:
        self.checks = {spec.name: ArgumentCheck.of(spec) for spec in specs}

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        check = self.checks.get(params.name)
        if check is None:
            return error_result(f"Unknown tool: {params.name}. The tools are: {', '.join(self.checks)}.")
        if (problem := check.problem(params.arguments or {})) is not None:
            return error_result(problem)
        return await call_next(ctx)


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
