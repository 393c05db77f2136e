"""The `triage` tool: the on-call question ("what is this, and what do I do?") answered in
one call from `incidents.triage`, the same function `POST /api/triage` serves."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from incidents import triage as triage_module
from incidents.selectors import MAX_QUERY_CHARS

from .budget import fit_list
from .links import case_links
from .models import LogLine, TriageResult

TRIAGE_BUDGET = 8_000


def triage(
    symptoms: Annotated[
        str,
        Field(
            max_length=MAX_QUERY_CHARS,
            description="What failed, in words or error text.",
        ),
    ] = "",
    log: Annotated[str, Field(max_length=1_000_000, description="Log lines (optional).")] = "",
    job: Annotated[Literal["training", "inference"] | None, Field(description="Kind of job.")] = None,
    framework: Annotated[
        str | None, Field(max_length=60, description="e.g. PyTorch, DeepSpeed, vLLM.")
    ] = None,
    accelerator: Annotated[str | None, Field(max_length=60, description="e.g. H100, A100, TPU v4.")] = None,
    scale: Annotated[int | None, Field(ge=1, le=1_000_000, description="Accelerators in the job.")] = None,
    limit: Annotated[int, Field(ge=3, le=5)] = 5,
) -> TriageResult:
    """On-call triage: the 3-5 known cases most like a failure, each with confidence
    (strong/possible/weak), why, root cause, fix, checks, sources; known=false when none
    is strong.

    Use first when something is broken. Not for: a case in full (get_incident).
    Example: {"symptoms": "training hangs after a node swap", "job": "training"}.
    Size: budget 8 KB, then fewer cases (`truncated`). Error: no symptoms and no log.
    """
    if not symptoms.strip() and not log.strip():
        raise ToolError("Give symptoms (what failed, the error text) or log lines, or both.")
    context = triage_module.TriageContext(job=job, framework=framework, accelerator=accelerator, scale=scale)
    answer = triage_module.triage(symptoms=symptoms, log=log, context=context, limit=limit)
    result = TriageResult.model_validate(triage_module.triage_document(answer, case_links))

    def kept_lines(kept: int) -> list[LogLine]:
        wanted = {n for case in result.cases[:kept] for n in case.why.line_numbers}
        return [line for line in result.log_lines if line.line_number in wanted]

    return fit_list(result, "cases", TRIAGE_BUDGET, lambda kept: {"log_lines": kept_lines(kept)})
