"""The triage prompt: a symptom description (and optionally log lines) in, a plan that uses
the incident tools out."""

from __future__ import annotations

import inspect
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS
from pydantic import Field

TRIAGE_STEPS = """\
Use the incidentlib tools to find past incidents like this one, then write a triage plan.

1. Call triage once with the symptoms, the log lines and what is known of the job (training
   or inference, framework, accelerator, scale). It returns the likely known cases with
   confidence, root cause, fix, checks and sources.
2. Only if nothing is strong: call match_log with the log lines and search_incidents with
   a short description in other words (the error text, what hung, at what scale).
3. Read a promising case in full with get_incident when the triage summary is not enough,
   and call similar_incidents on the best match to see related failures.
4. Write the plan:
   - Likely causes, most likely first, each citing the case ids that support it and how
     closely their symptoms match (scale, components, error messages).
   - Checks to run now, in order, to tell the causes apart (commands or metrics to look
     at, taken from the cases' checks and detection where they apply).
   - Mitigations that worked in those cases, and what to avoid.
   - What is still unknown and what information would settle it.
Say plainly when no past case matches well; do not stretch a weak match."""


def triage(
    symptoms: Annotated[
        str, Field(description="What is failing, in words: the error text, what hung, at what scale.")
    ],
    text: Annotated[str, Field(description="Log lines around the failure (optional).")] = "",
    environment: Annotated[
        str,
        Field(description="Training or inference, framework, accelerator and scale (optional)."),
    ] = "",
    log: Annotated[str, Field(description="Former name of text, still read.")] = "",
    log_excerpt: Annotated[str, Field(description="Former name of text, still read.")] = "",
) -> str:
    """Turn a symptom description (optionally with log lines and the environment) into a
    triage plan grounded in past incidents: the triage tool first, then get_incident and
    similar_incidents on its best matches.

    The log lines are `text`, as the triage tool names them; `log` and `log_excerpt`, this
    prompt's former names for them, are still read for clients that send them (one name, or
    the same lines under each)."""
    given = [
        (name, value.strip()) for name, value in (("text", text), ("log", log), ("log_excerpt", log_excerpt))
    ]
    sent = [(name, value) for name, value in given if value]
    if len({value for _, value in sent}) > 1:
        raise MCPError(
            code=INVALID_PARAMS,
            message="Give the log lines once, as text (log and log_excerpt are its former names).",
        )
    lines = sent[0][1] if sent else ""
    parts = [TRIAGE_STEPS, "", "Symptoms:", symptoms.strip()]
    if environment.strip():
        parts += ["", "Environment:", environment.strip()]
    if lines:
        parts += ["", "Log excerpt:", "```", lines, "```"]
    return "\n".join(parts)


def register_prompts(server: MCPServer) -> None:
    server.prompt(
        name="triage",
        title="Triage a failure from past incidents",
        description=inspect.cleandoc(triage.__doc__ or ""),
    )(triage)
