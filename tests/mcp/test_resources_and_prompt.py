"""Resources: cases and topics as Markdown; the triage prompt."""

from __future__ import annotations

from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, ResourceTemplateReference

from incidents import selectors
from tests.conftest import load_fixture


def test_resource_templates_are_listed(mcp):
    templates = mcp.run(lambda client: client.list_resource_templates()).resource_templates
    assert {(t.uri_template, t.mime_type) for t in templates} == {
        ("incident://{case_id}", "text/markdown"),
        ("topic://{slug}", "text/markdown"),
    }


def test_a_case_reads_as_markdown_with_every_section(mcp):
    text = mcp.read("incident://IL-0428")
    fixture = load_fixture("IL-0428")
    assert text.startswith(f"# IL-0428: {fixture['title']}\n")
    environment = fixture["environment"]
    assert fixture["occurred"] is None and fixture["facts"]["severity"] is None  # shown as not known
    for line in (
        f"- Organization: {fixture['organization']}",
        f"- Published: {fixture['published']}",
        "- Occurred: not known",
        f"- Topics: {', '.join(fixture['topics'])}",
        "- Severity: not known",
        f"- Cluster: {environment['cluster']}",
        f"- Accelerator count: {environment['accelerator_count']}",
        f"Tags: {', '.join(fixture['symptoms']['tags'])}",
        f"Category: {fixture['root_cause']['category']}",
    ):
        assert f"\n{line}\n" in text
    for heading in (
        "Summary",
        "Facts",
        "Environment",
        "Symptoms",
        "Scale observations",
        "Root cause",
        "Detection",
        "Remediation",
        "Lessons",
        "Checks",
        "Sources",
    ):
        assert f"\n## {heading}\n" in text
    assert f"### {fixture['scale_tables'][0]['caption']}\n" in text
    assert "| Model size (parameters) | Layers |" in text
    source = fixture["sources"][0]
    assert f"- [{source['title'] or source['url']}]({source['url']})" in text
    assert fixture["remediation"][0] in text


def test_related_cases_link_their_resources(mcp):
    assert "\n## Related cases\n\n- incident://IL-0429\n- incident://IL-0435\n" in mcp.read(
        "incident://il-0430"
    )


def test_a_topic_reads_as_markdown(mcp):
    text = mcp.read("topic://training-instability")
    overview = selectors.topic_overview("training-instability")
    assert text.startswith("# Topic: Loss spikes and divergence (training-instability)\n")
    assert f"\nPublished cases: {overview.case_count}\n" in text
    term, count = overview.top_root_causes[0]
    assert f"\n- {term.name} ({count})\n" in text
    latest = overview.latest_cases[0]
    assert f"- [{latest.id}](incident://{latest.id}) {latest.title}" in text


def test_unknown_resources_name_what_exists(mcp):
    error = mcp.read_error("incident://IL-0440")
    assert error.code == INVALID_PARAMS
    assert error.message == "No incident 'IL-0440'. Closest ids: IL-0439, IL-0441, IL-0438."
    assert mcp.read_error("topic://gpus").message.startswith(
        "Unknown topic 'gpus'. Valid values: checkpoint-storage (Checkpoint and storage failures), "
    )


def test_the_triage_prompt_plans_with_the_tools(mcp):
    prompts = mcp.run(lambda client: client.list_prompts()).prompts
    (triage,) = prompts
    assert triage.name == "triage"
    # `text`, as the triage tool names the log lines; `log` and `log_excerpt`, former names, last.
    assert [(a.name, a.required) for a in triage.arguments] == [
        ("symptoms", True),
        ("text", False),
        ("environment", False),
        ("log", False),
        ("log_excerpt", False),
    ]
    assert "`log` and `log_excerpt`, this prompt's former names" in " ".join(triage.description.split())
    result = mcp.run(
        lambda client: client.get_prompt(
            "triage",
            {
                "symptoms": "allreduce hangs after adding 64 nodes",
                "text": "Watchdog caught collective operation timeout",
            },
        )
    )
    text = result.messages[0].content.text
    assert result.messages[0].role == "user"
    for tool in ("match_log", "search_incidents", "get_incident", "similar_incidents"):
        assert tool in text
    assert "Symptoms:\nallreduce hangs after adding 64 nodes" in text
    assert "Log excerpt:\n```\nWatchdog caught collective operation timeout\n```" in text
    assert "Environment:" not in text


def prompt_text(mcp, arguments: dict[str, str]) -> str:
    result = mcp.run(lambda client: client.get_prompt("triage", arguments))
    return result.messages[0].content.text


def test_the_triage_prompt_still_reads_log_and_log_excerpt(mcp):
    symptoms = "allreduce hangs after adding 64 nodes"
    line = "Watchdog caught collective operation timeout"
    by_name = prompt_text(mcp, {"symptoms": symptoms, "text": line})
    assert "Log excerpt:\n```\nWatchdog caught collective operation timeout\n```" in by_name
    assert prompt_text(mcp, {"symptoms": symptoms, "log": line}) == by_name
    assert prompt_text(mcp, {"symptoms": symptoms, "log_excerpt": line}) == by_name
    # The same lines under several names are one log, not a conflict.
    assert prompt_text(mcp, {"symptoms": symptoms, "text": line, "log": line, "log_excerpt": line}) == by_name


def triage_prompt_error(mcp, arguments: dict[str, str]) -> MCPError:
    """The error `get_prompt("triage", arguments)` raises (fails the test if it renders)."""

    async def get(client):
        try:
            await client.get_prompt("triage", arguments)
        except MCPError as error:
            return error
        raise AssertionError("the prompt rendered")

    return mcp.run(get)


def test_the_triage_prompt_refuses_two_different_logs(mcp):
    error = triage_prompt_error(mcp, {"symptoms": "hang", "text": "NCCL WARN Timeout", "log": "Xid 79"})
    assert (error.code, error.message) == (
        INVALID_PARAMS,
        "Give the log lines once, as text (log and log_excerpt are its former names).",
    )


def test_resource_ids_complete(mcp):
    def complete(uri: str, name: str, value: str):
        return mcp.run(
            lambda client: client.complete(ResourceTemplateReference(uri=uri), {"name": name, "value": value})
        ).completion

    ids = complete("incident://{case_id}", "case_id", "il-042")
    assert ids.values == [f"IL-042{n}" for n in range(8, 10)]
    assert ids.total == 2 and ids.has_more is False
    assert complete("topic://{slug}", "slug", "s").values == [
        "scheduler",
        "silent-data-corruption",
        "software-regression",
        "stragglers",
    ]


def test_an_argument_the_triage_prompt_does_not_take_is_named(mcp):
    error = triage_prompt_error(mcp, {"symptom": "hang", "text": "NCCL WARN Timeout"})
    assert (error.code, error.message) == (
        INVALID_PARAMS,
        "Prompt 'triage' has no argument 'symptom' (did you mean 'symptoms'?); "
        "it takes: symptoms, text, environment, log, log_excerpt.",
    )


def test_an_argument_the_prompt_knows_by_another_name_names_it(mcp):
    # `logs` stands for a pasted log, `text` as the triage tool and match_log name it: the hint
    # says text, as a tool's unknown argument does (`spelling.names_meant`), not `log`, the
    # former name spelt like it.
    error = triage_prompt_error(mcp, {"symptoms": "hang", "logs": "NCCL WARN Timeout"})
    assert (error.code, error.message) == (
        INVALID_PARAMS,
        "Prompt 'triage' has no argument 'logs' (did you mean 'text'?); "
        "it takes: symptoms, text, environment, log, log_excerpt.",
    )
