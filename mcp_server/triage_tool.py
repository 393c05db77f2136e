"""The `triage` tool: the on-call question ("what is this, and what do I do?") answered in
one call from `incidents.triage`, the same function `POST /api/triage` serves."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from incidents import triage as triage_module
from incidents.selectors import MAX_QUERY_CHARS
from incidents.selectors.params import NOTHING_TO_TRIAGE

from .budget import fit_list
from .filters import read_query
from .links import case_links
from .outputs import TriageResult

TRIAGE_BUDGET = 8_000


def triage(
    symptoms: Annotated[
        str,
        Field(
            # Stated for clients, checked by `read_query`: refused in the words of the parser
            # the search doors share, as `search_incidents` refuses a query.
            json_schema_extra={"maxLength": MAX_QUERY_CHARS},
            description="What failed, in words or error text.",
        ),
    ] = "",
    # `text`, as match_log and POST /api/match name a pasted log (it was `log`).
    text: Annotated[str, Field(max_length=1_000_000, description="Log lines.")] = "",
    job: Annotated[Literal["training", "inference"] | None, Field(description="Kind of job.")] = None,
    framework: Annotated[
        str | None, Field(max_length=60, description="e.g. PyTorch, DeepSpeed, vLLM.")
    ] = None,
    accelerator: Annotated[str | None, Field(max_length=60, description="e.g. H100, A100, TPU v4.")] = None,
    scale: Annotated[int | None, Field(ge=1, le=1_000_000, description="Accelerators in the job.")] = None,
    limit: Annotated[int, Field(ge=3, le=5)] = 5,
) -> TriageResult:
    """The 3-5 known cases most like a failure, each with confidence (strong/possible/weak),
    why (terms, log lines, context), root cause, fix, checks, sources; known=false if none
    is strong.

    Use first when something breaks. Not for: a case in full (get_incident).
    Example: {"symptoms": "loss spikes after resuming", "job": "training"}.
    Size: budget 8 KB, then shorter texts, fewer cases (`truncated`, notes). Error: no
    symptoms and no text.
    """
    symptoms = read_query(symptoms, parameter="symptoms")
    if not symptoms.strip() and not text.strip():
        raise ToolError(f"Invalid arguments: {NOTHING_TO_TRIAGE}.")
    context = triage_module.TriageContext(job=job, framework=framework, accelerator=accelerator, scale=scale)
    answer = triage_module.triage(symptoms=symptoms, log=text, context=context, limit=limit)
    return fit_triage(answer, TRIAGE_BUDGET)


def fit_triage(answer: triage_module.TriageAnswer, budget: int) -> TriageResult:
    """The answer within `budget` bytes, with at least three cases when it has three.

    Each step of `triage_module.DETAILS` shortens every case's texts (root cause, fixes,
    checks, log lines); at each step the last cases go when all do not fit, and the first
    step that keeps three cases (or all, when fewer) is the answer. Whatever is cut is said
    in `notes`, with where to get it: get_incident for a case, POST /api/triage for all.
    """
    for step, detail in enumerate(triage_module.DETAILS):
        result = TriageResult.model_validate(triage_module.triage_document(answer, case_links, detail))
        if step:
            shortened = (
                f"Shortened to fit {budget // 1000} KB (texts of {detail.text_chars} characters; "
                f"fixes: {detail.fixes}, checks: {detail.checks} a case): get_incident gives a case "
                "in full, POST /api/triage the whole answer."
            )
            result = result.model_copy(update={"truncated": True, "notes": [*result.notes, shortened]})
        cut = fit_list(result, "cases", budget, _left_out(result))
        if len(cut.cases) >= min(triage_module.MIN_CASES, len(result.cases)):
            break
    return cut


def _left_out(result: TriageResult) -> Callable[[int], dict[str, Any]]:
    """The `mark` of a triage answer cut after `kept` cases: the lines the kept cases point
    at, and a note naming the cases left out."""

    def mark(kept: int) -> dict[str, Any]:
        wanted = {n for case in result.cases[:kept] for n in case.why.line_numbers}
        rest = ", ".join(case.id for case in result.cases[kept:])
        note = (
            f"Cut to the budget after {kept} cases; left out: {rest} (get_incident reads one, "
            "POST /api/triage returns all)."
        )
        return {
            "log_lines": [line for line in result.log_lines if line.line_number in wanted],
            "notes": [*result.notes, note],
        }

    return mark
