"""The `am_i_affected` tool: component versions in, the cases whose `affected` ranges hold
them out, from `selectors.check_versions` and `selectors.affected_cases`, the functions
`POST /api/affected` and the `/affected/` form call; a problem they report (an unknown
component, a version with no order) is a tool error saying what would be accepted."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from incidents import selectors
from incidents.search.logmatch import shown_line
from incidents.selectors.affected import MAX_COMPONENTS, AffectedMatch, VersionProblem

from .budget import fit_list, json_size
from .links import case_links
from .models import AffectedCase, AffectedResult

AFFECTED_BUDGET = 8_000
WORKAROUND_CHARS = 300  # the case's first remediation step, ending in "…" when cut
SHOWN_CHARS = 60  # of a key or version quoted back in an error


def am_i_affected(
    versions: Annotated[
        dict[str, str],
        Field(
            min_length=1,
            max_length=MAX_COMPONENTS,
            description="Component name -> version.",
        ),
    ],
) -> AffectedResult:
    """Cases whose `affected` ranges hold your component versions.

    Use when you know versions (NCCL, NVIDIA driver, CUDA, PyTorch). Not for: a failure
    (triage). Example: {"versions": {"NCCL": "2.19.3"}}. PEP 440 order (535.104.05 number
    by number); `unknown`: possibly affected (a bound with no order, or before
    the first listed version when `introduced` is null).
    Size: 0.7 KB a case; budget 8 KB, then cut (`truncated`). Errors: unknown component
    (lists all), version with no order.
    """
    resolved, problems = selectors.check_versions(versions)
    if problems:
        raise ToolError(_problems_message(problems))
    answer = selectors.affected_cases(resolved)
    unknown = [_entry(m) for m in answer.unknown]
    affected = [_entry(m) for m in answer.affected]
    notes = [] if affected or unknown else ["No published case lists these versions as affected."]
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


def _problems_message(problems: list[VersionProblem]) -> str:
    """One sentence per problem, then (when a component was not known) every accepted
    component name: the tool error an assistant can act on."""
    parts = []
    for problem in problems:
        if problem.detail == "unknown component":
            near = f" (nearest: {', '.join(problem.suggestions)})" if problem.suggestions else ""
            parts.append(f"Unknown component {_shown(problem.component)}{near}.")
        elif problem.value is not None:
            parts.append(f"{_shown(problem.component)}: {_shown(problem.value)} is {problem.detail}.")
        else:
            parts.append(f"{_shown(problem.component)}: {problem.detail}.")
    if any(p.detail == "unknown component" for p in problems):
        parts.append(
            "Components (name, slug or synonym, any case): " + ", ".join(selectors.component_names()) + "."
        )
    return " ".join(parts)
