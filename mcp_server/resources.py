"""MCP resources: each case as `incident://IL-0428` and each topic as `topic://interconnect`,
in Markdown, ready to read into an assistant's context; clients can complete the ids."""

from __future__ import annotations

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.types import Completion, CompletionArgument, ResourceTemplateReference

from incidents import selectors
from incidents.models import Case, Facet
from incidents.selectors import find_topic

from .links import INCIDENT_URI, TOPIC_URI
from .lookup import case_notice, find_case_id, no_topic_message
from .markdown import case_markdown, topic_markdown
from .toolkit import resource_reader, with_database

MAX_COMPLETIONS = 100  # the protocol's cap per answer


def read_incident(case_id: str) -> str:
    """The case as Markdown. An id merged into another case reads the kept case, a retracted
    case reads as itself, each with get_incident's `notice` (`case_notice`) as a quoted line
    under the headline: `> IL-0431 was merged into IL-0428 as a duplicate; this is IL-0428.`,
    `> Retracted: <reason>`. Unknown id: ResourceNotFoundError naming the closest ids."""
    lookup = find_case_id(case_id)
    case = lookup.case
    if case is None:
        closest = lookup.closest
        raise ResourceNotFoundError(
            f"No incident {case_id!r}." + (f" Closest ids: {', '.join(closest)}." if closest else "")
        )
    markdown = case_markdown(selectors.published_document(case))
    retracted = case.status == Case.Status.RETRACTED
    notice = case_notice(case.id, lookup.merged_from, (case.retraction_reason or "") if retracted else None)
    if notice is None:
        return markdown
    headline, _, rest = markdown.partition("\n")
    return f"{headline}\n\n> {' '.join(notice.split())}\n{rest}"


def read_topic(slug: str) -> str:
    """The topic overview as Markdown. Unknown topic: ResourceNotFoundError saying what
    get_topic says (`no_topic_message`: the nearest topics, or for a former topic, now a
    workload, where its cases are)."""
    lookup = find_topic(slug)
    if lookup.term is None:
        raise ResourceNotFoundError(no_topic_message(slug, lookup))
    overview = selectors.topic_overview(lookup.term)
    assert overview is not None
    return topic_markdown(overview)


def completions(uri_template: str, argument: str, prefix: str) -> Completion | None:
    """Case ids or topic slugs starting with `prefix` (ignoring case), for URI templates."""
    if (uri_template, argument) == (INCIDENT_URI, "case_id"):
        values = selectors.visible_case_ids()
    elif (uri_template, argument) == (TOPIC_URI, "slug"):
        values = [term.slug for term in selectors.vocabulary(Facet.TOPIC)]
    else:
        return None
    matching = [v for v in values if v.casefold().startswith(prefix.strip().casefold())]
    return Completion(
        values=matching[:MAX_COMPLETIONS], total=len(matching), has_more=len(matching) > MAX_COMPLETIONS
    )


def register_resources(server: MCPServer) -> None:
    complete_in_thread = with_database(completions)

    @server.completion()
    async def complete(ref: object, argument: CompletionArgument, context: object) -> Completion | None:
        if not isinstance(ref, ResourceTemplateReference):
            return None
        return await anyio.to_thread.run_sync(complete_in_thread, ref.uri, argument.name, argument.value)

    server.resource(
        INCIDENT_URI,
        name="incident",
        title="Incident case",
        description="One incident case in Markdown: facts, symptoms, scale observations, root "
        "cause, remediation, lessons, checks, sources. E.g. incident://IL-0428.",
        mime_type="text/markdown",
    )(resource_reader(read_incident))
    server.resource(
        TOPIC_URI,
        name="topic",
        title="Incident topic",
        description="One topic in Markdown: description, case count, frequent symptoms, root "
        "causes and components, latest cases. E.g. topic://interconnect.",
        mime_type="text/markdown",
    )(resource_reader(read_topic))
