"""The `am_i_affected` tool: component versions in, the cases whose `affected` ranges hold
them out, from `selectors.check_versions` and `selectors.affected_cases`, the functions
`POST /api/affected` and the `/affected/` form call. Keys naming no component are named in
a note beside the answer for the others (a pasted `pip freeze`); a problem that stops the
check (no known component, a version with no order) is a tool error saying what would be
accepted."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BeforeValidator, Field
from pydantic_core import PydanticCustomError

from incidents import selectors
from incidents.encodable import encodable
from incidents.search.log_lines import shown_line
from incidents.selectors.affected import MAX_ENTRIES, AffectedMatch, VersionProblem

from .budget import fit_list, json_size
from .links import case_links
from .outputs import AffectedCase, AffectedResult

AFFECTED_BUDGET = 8_000
WORKAROUND_CHARS = 300  # the case's first remediation step, ending in "…" when cut
SHOWN_CHARS = 60  # of a key or version quoted back in an error
SKIPPED_SHOWN = 20  # keys left out named in a note, problems in an error (`pip freeze`: hundreds)


def _versions_object(given: Any) -> Any:
    """`versions` as `POST /api/affected` reads it: an object of version strings, else
    refused in the API's words (`selectors.versions_detail`: `""` must not be empty, and
    what it takes), not pydantic's "Input should be a valid dictionary"."""
    if not selectors.is_versions(given):
        raise PydanticCustomError("versions", "{detail}", {"detail": selectors.versions_detail(given)})
    return given


def am_i_affected(
    versions: Annotated[
        dict[str, str],
        Field(
            min_length=1,
            max_length=MAX_ENTRIES,
            description="Component name -> version.",
        ),
        BeforeValidator(_versions_object),
    ],
) -> AffectedResult:
    """Cases whose `affected` ranges hold your component versions.

    Use when you know versions (NCCL, driver, CUDA, PyTorch; pip names too). Not for:
    a failure (triage). Example: {"versions": {"NCCL": "2.19.3"}}. PEP 440 order; `unknown`:
    possibly affected (a bound with no order, or older than any listed and no `introduced`);
    unknown keys are noted.
    Size: 0.7 KB a case; budget 8 KB, then cut (`truncated`). Errors: no known component
    (lists all), version with no order.
    """
    resolved, problems = selectors.check_versions(versions)
    if selectors.refusing(problems):
        raise ToolError(_problems_message(problems))
    answer = selectors.affected_cases(resolved)
    unknown = [_entry(m) for m in answer.unknown]
    affected = [_entry(m) for m in answer.affected]
    notes = [] if affected or unknown else ["No published case lists these versions as affected."]
    if problems:
        notes.append(_skipped_note(problems))
    result = AffectedResult(checked=answer.checked, affected=affected, unknown=unknown, notes=notes)
    if json_size(result.model_copy(update={"affected": []})) > AFFECTED_BUDGET // 2:
        # Ranges that cannot be compared are the lesser answer: they get half the budget at most.
        result = fit_list(
            result.model_copy(update={"affected": []}),
            "unknown",
            AFFECTED_BUDGET // 2,
            lambda kept: {"notes": [*notes, f"Cut to {kept} of {len(unknown)} ranges with no order."]},
        ).model_copy(update={"affected": affected})
        notes = result.notes
    return fit_list(
        result,
        "affected",
        AFFECTED_BUDGET,
        lambda kept: {
            "notes": [
                *notes,
                f"Cut to the budget after {kept} of {len(affected)} cases: POST /api/affected "
                "with the same versions returns all.",
            ]
        },
    )


def _entry(match: AffectedMatch) -> AffectedCase:
    return AffectedCase(
        id=match.case.id,
        title=match.case.title,
        component=match.component,
        version=match.version,
        range=match.range,
        why=match.verdict.why,
        fixed=match.fixed,
        workaround=shown_line(match.workaround, WORKAROUND_CHARS) if match.workaround else None,
        **case_links(match.case.id),
    )


def _shown(value: str | None) -> str:
    text = value or ""
    return repr(text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…")


def _skipped_note(problems: list[VersionProblem]) -> str:
    """The note naming the keys left out (`SKIPPED_SHOWN` of them, as sent, cut), each with
    the nearest component names."""
    shown = []
    for problem in problems[:SKIPPED_SHOWN]:
        near = f" (nearest: {', '.join(problem.suggestions)})" if problem.suggestions else ""
        shown.append(f"{_shown(problem.component)}{near}")
    more = (
        f" and {len(problems) - SKIPPED_SHOWN} more (POST /api/affected lists all)"
        if len(problems) > SKIPPED_SHOWN
        else ""
    )
    # The keys as sent, a lone surrogate in one written as its escape (as tool errors are).
    return encodable(f"Not checked, no component by these names: {', '.join(shown)}{more}.")


def _problems_message(problems: list[VersionProblem]) -> str:
    """One sentence per problem, then (when a component was not known) every accepted
    component name: the tool error an assistant can act on."""
    parts = []
    for problem in problems[:SKIPPED_SHOWN]:
        if problem.detail == "unknown component":
            near = f" (nearest: {', '.join(problem.suggestions)})" if problem.suggestions else ""
            parts.append(f"Unknown component {_shown(problem.component)}{near}.")
        elif problem.value is not None:
            parts.append(f"{_shown(problem.component)}: {_shown(problem.value)} is {problem.detail}.")
        else:
            parts.append(f"{_shown(problem.component)}: {problem.detail}.")
    if len(problems) > SKIPPED_SHOWN:
        parts.append(f"{len(problems) - SKIPPED_SHOWN} more problems: POST /api/affected lists all.")
    if any(p.detail == "unknown component" for p in problems):
        parts.append(
            "Components (name, slug or synonym, any case): " + ", ".join(selectors.component_names()) + "."
        )
    return " ".join(parts)
