"""Tool calls with a wrong tool name or wrong arguments are refused before the tool runs, with
a message an assistant can act on (the SDK's default is a raw pydantic report, and it
silently ignores unknown argument names).

Plugged in through the SDK's public `Extension.intercept_tool_call` hook, which wraps the
`tools/call` handler and returns results in the protocol's envelope.

`arguments` that are not a JSON object (`"arguments": "IL-0428"`) never reach that hook: the
SDK's request validation refuses them first with a bare -32602 "Invalid request parameters"
(empty `data`) that says nothing of what would work. So `CheckedArguments.park_misshapen`, a
`Server.middleware` callable, moves such a value into `_meta` under `MISSHAPEN_ARGUMENTS`
(a valid request again) and the argument check answers it as any other bad argument: a tool
error saying what would work (`arguments must be an object such as {"id": "IL-0428"}`). A
`tools/call` naming no tool (no `params`, or no `name`) got the same bare -32602; it is still
a -32602 (no tool to answer it), but saying what would work (`unnamed_call`).

An optional argument given as a blank string (`"published_after": ""`, `"sort": ""`) is
left out before the tool runs (`ArgumentCheck.without_blanks`): the rule of every door
(`selectors.is_blank`), as the pages and the API read `?sort=` as no sort. A required one
(`query`, `text`) is still refused as empty.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any, get_args

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolRequestParams
from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, create_model
from pydantic_core import PydanticCustomError

from incidents.selectors import FACETS_BY_NAME, is_blank, json_whole_number, whole_number_wanted
from incidents.selectors.spelling import NAMES_MEANT, closeness, names_meant

from .toolkit import ToolSpec, error_result

# The facets an `exclude` item may name (`filters.build_filters`).
EXCLUDE_FACETS = tuple(FACETS_BY_NAME)

# How close (`spelling.closeness`, the rule of every "did you mean") an unknown argument and
# one of the tool's must be to be a slip of it (`symptoms`, 0.875 to `symptom`) rather than
# another tool's argument merely spelt near one of this tool's.
_SLIP = 0.8
# Where `park_misshapen` keeps `arguments` that are not an object (an implementation-specific
# `_meta` key, reverse-DNS prefixed as the specification asks).
MISSHAPEN_ARGUMENTS = "dev.incidentlib/misshapen-arguments"
# A call that works, shown when a `tools/call` names no tool.
CALL_EXAMPLE = {"name": "get_incident", "arguments": {"id": "IL-0428"}}


@dataclass(frozen=True)
class ArgumentCheck:
    """A tool's arguments as a pydantic model (from its signature) and its JSON schema."""

    name: str
    model: type[BaseModel]
    schema: dict[str, Any]
    # Arguments this tool lacks that another takes, each with what to say of it (`elsewhere`).
    taken_elsewhere: Mapping[str, str] = dataclasses.field(default_factory=dict)

    @classmethod
    def of(cls, spec: ToolSpec) -> ArgumentCheck:
        fields: dict[str, Any] = {}
        for parameter in inspect.signature(spec.fn, eval_str=True).parameters.values():
            default = ... if parameter.default is inspect.Parameter.empty else parameter.default
            annotation = parameter.annotation
            if _takes_integers(annotation):
                annotation = Annotated[annotation, BeforeValidator(_integer_text)]
            fields[parameter.name] = (annotation, default)
        model = create_model(f"{spec.name}_arguments", __config__=ConfigDict(extra="forbid"), **fields)
        return cls(name=spec.name, model=model, schema=model.model_json_schema())

    def problem(self, arguments: dict[str, Any]) -> str | None:
        """Why `arguments` cannot be passed to the tool, or None when they can."""
        known = list(self.schema.get("properties", {}))
        unknown = sorted(set(arguments) - set(known))
        if unknown:
            hints = [f"{name!r}{self.hint(name, known)}" for name in unknown]
            return f"Unknown argument {', '.join(hints)}; {self.name} takes: {', '.join(known)}."
        try:
            self.model.model_validate(self.as_the_sdk_reads(arguments))
        except ValidationError as exc:
            return describe_validation_error(exc, self.schema)
        return None

    def hint(self, name: str, known: list[str]) -> str:
        """What an unknown argument `name` may have meant, in brackets: this tool's argument
        it stands for (`log` -> `text` to match_log and triage: the API's
        `spelling.names_meant`) or is a slip of (`symptoms` -> `symptom`, though triage takes
        `symptoms`); else the tool taking an argument so named, with its values (`sort` to
        search_incidents, which ranks by relevance: list_incidents takes newest or oldest),
        rather than an argument merely spelt alike (`cursor`); else the argument spelt like
        it; else nothing."""
        near = names_meant(name, known, limit=1)
        stands_for = bool(near) and near[0] in NAMES_MEANT.get(name.casefold(), ())
        slip = bool(near) and closeness(name, near[0]) >= _SLIP
        if name in self.taken_elsewhere and not (stands_for or slip):
            return f" ({self.taken_elsewhere[name]})"
        return f" (did you mean {near[0]!r}?)" if near else ""

    def elsewhere(self, others: list[ArgumentCheck]) -> ArgumentCheck:
        """This check knowing which of `others` take an argument it lacks: `sort` -> "list_incidents
        takes it: newest, oldest" (the values when one tool takes it and lists them)."""
        own = set(self.schema.get("properties", {}))
        takers: dict[str, list[tuple[str, dict[str, Any]]]] = {}
        for other in others:
            for name, prop in other.schema.get("properties", {}).items():
                if name not in own:
                    takers.setdefault(name, []).append((other.name, prop))
        said = {}
        for name, tools in takers.items():
            values = _find(tools[0][1], "enum") if len(tools) == 1 else None
            listed = f": {', '.join(map(str, values))}" if values else ""
            verb = "takes" if len(tools) == 1 else "take"
            said[name] = f"{' and '.join(tool for tool, _ in tools)} {verb} it{listed}"
        return dataclasses.replace(self, taken_elsewhere=said)

    def without_blanks(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """`arguments` without the optional ones given as a blank string (`is_blank`): those
        mean "not given", so the tool takes its default. Required ones stay (and an empty
        one is refused as such)."""
        required = set(self.schema.get("required") or ())
        return {
            name: value
            for name, value in arguments.items()
            if name in required or not isinstance(value, str) or not is_blank(value)
        }

    def not_an_object(self, given: Any) -> str:
        """Why `given`, sent as the whole `arguments` of a call, cannot be passed, with an
        object that would work when one can be told: the object itself when `given` is its
        JSON text, else a lone value (`"IL-0428"`) named after the tool's one required
        parameter when that parameter accepts it."""
        known = list(self.schema.get("properties", {}))
        required = self.schema.get("required") or []
        takes = f"{self.name} takes: {', '.join(known)}."
        if isinstance(given, str) and given.lstrip().startswith("{"):
            try:
                parsed = json.loads(given)
            except (ValueError, RecursionError):
                parsed = None
            if isinstance(parsed, dict):
                return (
                    "Invalid arguments: arguments must be an object, not a string holding one: "
                    f"send {_short(parsed)} itself, without the quotes; {takes}"
                )
        example = ""
        if len(required) == 1 and isinstance(given, str | int | float) and not isinstance(given, bool):
            try:
                self.model.model_validate({required[0]: given})
            except ValidationError:
                pass
            else:
                example = f" such as {{{json.dumps(required[0])}: {_short(given)}}}"
        return (
            f"Invalid arguments: arguments must be an object{example or ' naming each argument'} "
            f"(got {_short(given)}); {takes}"
        )

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
        checks = [ArgumentCheck.of(spec) for spec in specs]
        self.checks = {check.name: check.elsewhere(checks) for check in checks}

    async def intercept_tool_call(
        self,
        params: CallToolRequestParams,
        ctx: ServerRequestContext[Any, Any],
        call_next: CallNext,
    ) -> HandlerResult:
        check = self.checks.get(params.name)
        if check is None:
            return error_result(f"Unknown tool: {params.name}. The tools are: {', '.join(self.checks)}.")
        meta: Mapping[str, object] = params.meta or {}
        if MISSHAPEN_ARGUMENTS in meta:
            return error_result(check.not_an_object(meta[MISSHAPEN_ARGUMENTS]))
        if params.arguments:
            if (twice := alias_beside_its_argument(params.name, params.arguments)) is not None:
                return error_result(twice)
            # In place: the handler is invoked with these very params (`Extension` docs).
            read_aliases(params.name, params.arguments)
        if (problem := check.problem(params.arguments or {})) is not None:
            return error_result(problem)
        return await call_next(ctx)

    def unnamed_call(self, params: object) -> MCPError:
        """The -32602 error of a `tools/call` naming no tool (no `params`, no `name`, or one
        that is not a string): the SDK's own said "Invalid request parameters" with empty
        `data`. This one shows a call that works, in the message and in `data`, and lists
        the tools (no tool is named, so no tool error can answer it)."""
        if params is None:
            got = "params were missing"
        elif not isinstance(params, Mapping):
            got = f"params must be an object (got {_short(params)})"
        elif "name" not in params:
            got = "params had no name"
        else:
            got = f"name must be a string (got {_short(params['name'])})"
        tools = list(self.checks)
        return MCPError(
            code=INVALID_PARAMS,
            message=(
                f"tools/call needs params naming the tool and its arguments, such as "
                f"{json.dumps(CALL_EXAMPLE)} ({got}). The tools are: {', '.join(tools)}."
            ),
            data={"example": CALL_EXAMPLE, "tools": tools},
        )

    async def park_misshapen(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """A `Server.middleware` callable: a `tools/call` whose `arguments` are present but
        not an object goes on with no arguments and the given value in `_meta` (see the
        module docstring), for `intercept_tool_call` to refuse as a tool error; one naming
        no tool is refused at once (`unnamed_call`). Optional arguments given as a blank
        string are left out (`ArgumentCheck.without_blanks`)."""
        params = ctx.params
        named = isinstance(params, Mapping) and isinstance(params.get("name"), str)
        if ctx.method == "tools/call" and not named:
            raise self.unnamed_call(params)
        if ctx.method == "tools/call" and isinstance(params, Mapping):
            given = params.get("arguments")
            meta = params.get("_meta")
            check = self.checks.get(params["name"])
            if given is not None and not isinstance(given, dict) and isinstance(meta, dict | None):
                parked = {**(meta or {}), MISSHAPEN_ARGUMENTS: given}
                ctx = dataclasses.replace(ctx, params={**params, "arguments": {}, "_meta": parked})
            elif (
                isinstance(given, dict)
                and check is not None
                and (kept := check.without_blanks(given)) != given
            ):
                ctx = dataclasses.replace(ctx, params={**params, "arguments": kept})
        return await call_next(ctx)


def _takes_integers(annotation: Any) -> bool:
    """Whether a parameter typed `annotation` (`int`, `int | None`, either `Annotated`) takes an
    integer and no text."""
    while get_args(annotation) and getattr(annotation, "__metadata__", None) is not None:
        annotation = get_args(annotation)[0]  # Annotated[X, ...] -> X
    kinds = get_args(annotation) or (annotation,)
    return int in kinds and str not in kinds


def _integer_text(value: Any) -> Any:
    """An integer argument read by the rule of every JSON door (`selectors.json_whole_number`,
    as the API reads `limit` in `POST /api/match`): a JSON integer or its digits 0-9 as text
    (`5`, `"5"`, `5.0`); `true` refused (pydantic reads it as 1), as are `2.5` and text such
    as "1_000", "3.0" or "٣" (pydantic alone reads the first two and refuses the third
    without saying why). `None` and other values go on to pydantic as they are."""
    if value is None or isinstance(value, list | dict):
        return value
    number = json_whole_number(value)
    if number is None:
        raise PydanticCustomError("whole_number", "must be a whole number")
    return number


def _short(value: Any) -> str:
    if isinstance(value, str) and len(value) > 60:
        value = value[:60]  # a pasted megabyte need not be serialised to quote 60 characters
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _find(schema: dict[str, Any], key: str) -> Any:
    """The first `key` in a property schema, looking through anyOf branches and items."""
    if key in schema:
        return schema[key]
    for branch in [*schema.get("anyOf", []), *([schema["items"]] if "items" in schema else [])]:
        if isinstance(branch, dict) and (found := _find(branch, key)) is not None:
            return found
    return None


# Names an assistant gives an argument that the tool calls otherwise, read as that argument
# (walk #18: `{"topic": "interconnect"}` to get_topic, `{"code": "ncclSystemError"}` to
# explain_error, each cost a model a round trip). Not in the tools' schemas: tools/list
# stays as it is.
ALIASES: dict[str, dict[str, str]] = {
    "get_topic": {"topic": "slug"},
    "explain_error": {"code": "text"},
}


def read_aliases(tool: str, arguments: dict[str, Any]) -> None:
    """Rename in `arguments` each alias of `tool` (`ALIASES`) to the argument it stands for,
    unless that argument is given too (refused first: `alias_beside_its_argument`)."""
    for alias, name in ALIASES.get(tool, {}).items():
        if alias in arguments and name not in arguments:
            arguments[name] = arguments.pop(alias)


def alias_beside_its_argument(tool: str, arguments: Mapping[str, Any]) -> str | None:
    """Why a call of `tool` giving an alias (`ALIASES`) and the argument it stands for cannot
    be read, or None: both name one argument, so which value is meant is not for the server
    to guess (`{"topic": "interconnect", "slug": "interconnect"}` to get_topic). It was
    answered "Unknown argument 'topic'", which a caller reading get_topic's `topic` as
    taken could not act on."""
    for alias, name in ALIASES.get(tool, {}).items():
        if alias in arguments and name in arguments:
            return (
                f"{alias!r} and {name!r} name the same argument of {tool} ({alias!r} is read as "
                f"{name!r}): keep {name!r} and leave out {alias!r}."
            )
    return None


def exclusion_form(given: object) -> str:
    """What `exclude` takes, shown with what was sent: a list of 'facet:value' items. Its
    example was the value sent, split (`"training-hang"` -> `["training-hang"]`), which the
    tool refused in turn for want of a facet. An object of facets and values is shown as
    those items (`{"topic": ["training-hang"]}` -> `["topic:training-hang"]`); a bare value
    with `<facet>:` before it (which facet names it is the tool's to say: no query here)."""
    if isinstance(given, Mapping):
        pairs = [
            f"{facet}:{value}"
            for facet, values in given.items()
            for value in (values if isinstance(values, list) else [values])
        ]
    else:
        values = given.split(",") if isinstance(given, str) else []
        pairs = [v.strip() if ":" in v else f"<facet>:{v.strip()}" for v in values if v.strip()]
    example = json.dumps(pairs[:4] or ["topic:training-hang"])
    return (
        f"must be a list of 'facet:value' items such as {example}, <facet> one of {', '.join(EXCLUDE_FACETS)}"
    )


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
        elif kind == "whole_number":
            given = error.get("input")
            low, high = _find(prop, "minimum"), _find(prop, "maximum")
            example = prop.get("default") if isinstance(prop.get("default"), int) else None
            wanted = whole_number_wanted(given, minimum=low, maximum=high, example=example)
            problems.append(f"{where}: {wanted} (got {got})")
        elif kind in ("less_than_equal", "greater_than_equal", "less_than", "greater_than"):
            low, high = _find(prop, "minimum"), _find(prop, "maximum")
            if low is not None and high is not None:
                problems.append(f"{where} must be between {low} and {high} (got {got})")
            else:
                problems.append(f"{where}: {error['msg'].lower()} (got {got})")
        elif kind in ("literal_error", "enum"):
            values = _find(prop, "enum") or []
            problems.append(f"{where} must be one of {', '.join(map(str, values))} (got {got})")
        elif kind == "string_type" and type(error.get("input")) in (int, float):
            # `{"id": 428}`: the text of the number is what the argument takes.
            problems.append(f'{where}: must be a string: send "{error["input"]}" (got {got})')
        elif kind in ("string_too_long", "too_long"):
            unit = "characters" if kind == "string_too_long" else "items"
            problems.append(f"{where} is too long: at most {context.get('max_length')} {unit}")
        elif kind in ("string_too_short", "too_short"):
            problems.append(f"{where} must not be empty")
        elif kind == "list_type":
            # `"fields": "title,summary"`, as the API's query string takes it: the list form.
            given = error.get("input")
            items = (
                [part.strip() for part in given.split(",") if part.strip()] if isinstance(given, str) else []
            )
            if name == "exclude":
                problems.append(f"{where} {exclusion_form(given)} (got {got})")
                continue
            example = json.dumps(items or ["..."])
            values = _find(prop, "enum") or []
            allowed = f"; values: {', '.join(map(str, values))}" if values else ""
            problems.append(f"{where} must be a list such as {example} (got {got}){allowed}")
        else:
            problems.append(f"{where}: {error['msg']} (got {got})")
    return "Invalid arguments: " + "; ".join(problems) + "."
