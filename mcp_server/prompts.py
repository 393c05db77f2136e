"""The triage prompt: a symptom description (and optionally log lines) in, a plan that uses
the incident tools out."""

from __future__ import annotations

import inspect
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import Field

TRIAGE_STEPS = """\
Use the incidentlib tools to find past incidents like this one, then write a triage plan.

1. If log lines are given, call match_log with them first. Then call search_incidents with
   a short description of the symptoms in an engineer's words (the error text, what hung or
   failed, at what scale). Use vocab to find filter values if a filter would help.
2. Open the 2 or 3 most promising cases with get_incident, asking only for the fields you
   need: fields=["summary", "symptoms", "root_cause", "remediation", "checks", "lessons"].
3. For the best match, call similar_incidents to see related failures and their reasons.
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
    log_excerpt: Annotated[str, Field(description="Log lines around the failure (optional).")] = "",
    environment: Annotated[
        str,
        Field(description="Training or inference, framework, accelerator and scale (optional)."),
    ] = "",
) -> str:
    """Turn a symptom description (optionally with log lines and the environment) into a
    triage plan grounded in past incidents, using search_incidents, match_log,
    get_incident and similar_incidents."""
    parts = [TRIAGE_STEPS, "", "Symptoms:", symptoms.strip()]
    if environment.strip():
        parts += ["", "Environment:", environment.strip()]
    if log_excerpt.strip():
        parts += ["", "Log excerpt:", "```", log_excerpt.strip(), "```"]
    return "\n".join(parts)


def register_prompts(server: MCPServer) -> None:
    server.prompt(
        name="triage",
        title="Triage a failure from past incidents",
        description=inspect.cleandoc(triage.__doc__ or ""),
    )(triage)
