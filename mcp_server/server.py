"""The incidentlib MCP server: ten read-only tools, two resource templates, one prompt.

`build_server()` makes a fresh `MCPServer`; the HTTP app (`mcp_server.http`) and the stdio
command (`manage.py mcp_stdio`) each build their own, since a session manager runs once.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from mcp.server.mcpserver import MCPServer

from .arguments import CheckedArguments
from .prompts import register_prompts
from .protocol import ProtocolMiddleware
from .resources import register_resources
from .toolkit import register_tools
from .tools import TOOLS

INSTRUCTIONS = """\
incidentlib is a knowledge base of real, publicly documented AI-infrastructure incidents
(training hangs, NCCL and fabric faults, GPU errors, checkpoint and storage failures,
inference outages), each with symptoms, root cause, remediation and sources.
When something is broken: triage once with the symptoms, the log lines and what is known
of the job; it answers with the likely known cases, their root cause, fix, checks and
sources. For "have we seen this before?" alone: search_incidents with the symptoms in
words, or match_log with pasted log lines; then get_incident on the best hits (pass fields
to read less) and similar_incidents for neighbours. vocab lists the filter values;
list_incidents browses; get_topic summarises a topic; explain_error explains an error
code; am_i_affected checks component versions against known cases. Every tool only reads;
no key is needed. A whole number may be sent as a number or as its digits in a string
("5"); an optional argument sent as "" counts as not given."""


def _version() -> str:
    try:
        return version("incidentlib")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "0"


def build_server() -> MCPServer:
    """A new MCP server with every tool, resource and prompt registered."""
    checked_arguments = CheckedArguments(TOOLS)
    server = MCPServer(
        name="incidentlib",
        title="incidentlib: AI-infrastructure incidents",
        instructions=INSTRUCTIONS,
        version=_version(),
        extensions=[checked_arguments],
        # Nothing here changes at run time: no list-changed or resource-update streams, so
        # `server/discover` and `initialize` both say listChanged/subscribe are false.
        subscriptions=False,
        # Django's LOGGING already configured the root logger; this only sets a floor.
        log_level="WARNING",
    )
    register_tools(server, TOOLS)
    server.middleware.append(ProtocolMiddleware(server))
    server.middleware.append(checked_arguments.park_misshapen)
    register_resources(server)
    register_prompts(server)
    return server
