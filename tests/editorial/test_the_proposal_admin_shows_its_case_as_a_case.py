"""A reviewer reads a proposal in the admin as a case, not as JSON.

The proposal's page showed its source URLs as `["https://..."]`, its look-alikes as
`[{"id": "IL-0602", "reason": ...}]` and of the case itself only a link: to read the draft a
new case's proposal made, or the case a correction is about, the reviewer left the proposal
(a new user's walkthrough). The page now shows that case section by section (its text
rendered from Markdown and sanitised as on the case page, every other value escaped), the
URLs and look-alikes as links, and the case document as JSON in a closed `<details>`.
"""

from __future__ import annotations

import datetime
import html
import re

import pytest
from django.urls import reverse

from incidents.models import Case, Facet, Term
from incidents.proposals import services
from incidents.proposals.models import Proposal
from tests.web.html import element, links, text_of

pytestmark = pytest.mark.django_db

SOURCE = "https://github.com/NVIDIA/nccl/issues/1116"
HOSTILE_TITLE = "All-reduce hung at 512 GPUs after a driver update <script>alert(1)</script>"
SUMMARY = (
    "After the **driver** update the all-reduce hung.\n\n- rank 3 sat in `ncclAllReduce`\n"
    "- <img src=x onerror=alert(1)>"
)


@pytest.fixture
def new_case_proposal() -> Proposal:
    return services.propose_case(
        services.NewCase(
            title=HOSTILE_TITLE,
            organization="Community report",
            published=datetime.date(2025, 3, 1),
            summary=SUMMARY,
            topic=Term.objects.get(facet=Facet.TOPIC, slug="training-hang"),
            root_cause=None,
            source_urls=[SOURCE],
        )
    )


def proposal_page(client, user, proposal: Proposal) -> str:
    client.force_login(user)
    response = client.get(reverse("admin:incidents_proposal_change", args=[proposal.pk]))
    assert response.status_code == 200
    return response.content.decode()


def field_of(page: str, name: str) -> str:
    """The HTML of the admin's row for the field `name` (`<div class="form-row field-name">`)."""
    return element(page, "div", class_=f"form-row field-{name}")


def test_a_new_case_s_draft_reads_as_a_case(client, reviewer, new_case_proposal):
    page = proposal_page(client, reviewer, new_case_proposal)
    shown = field_of(page, "proposed_case")
    assert "Proposed case (its draft)" in text_of(shown)
    case = element(shown, "div", class_="proposal-case")
    sections = [text_of(dt) for dt in re.findall(r"<dt>.*?</dt>", case, re.S)]
    assert sections == [
        "Topics",
        "Summary",
        "Symptoms",
        "Root cause",
        "Remediation",
        "Action items",
        "Lessons",
        "Checks",
        "Sources",
    ]
    heading = f"{new_case_proposal.case_id} · Draft · Community report · source dated 2025-03-01"
    assert heading in text_of(case)
    assert "Topics Training hangs" in text_of(case)
    assert "Category: Root cause unknown" in text_of(case)
    # The summary as the case page renders it: Markdown, and nothing that runs.
    assert "After the <strong>driver</strong> update the all-reduce hung." in case
    assert "<li>rank 3 sat in <code>ncclAllReduce</code></li>" in case
    assert "<img" not in case and "onerror" not in case.split("<details>")[0]
    assert "<script>" not in page
    assert html.escape(HOSTILE_TITLE, quote=False) in case
    assert (SOURCE, SOURCE) in links(case)


def test_the_draft_shows_the_proposers_text_once(client, reviewer, new_case_proposal):
    # As the summary: it was copied into the symptoms too, and read twice.
    shown = field_of(proposal_page(client, reviewer, new_case_proposal), "proposed_case")
    case = element(shown, "div", class_="proposal-case").split("<details>")[0]
    assert case.count("<li>rank 3 sat in <code>ncclAllReduce</code></li>") == 1
    symptoms = re.search(r"<dt>Symptoms</dt><dd>(.*?)</dd>", case, re.S)
    assert symptoms is not None
    # Said with where to write them: accepting is refused until they are written.
    case_id = new_case_proposal.case_id
    assert text_of(symptoms.group(1)) == (
        "none yet: a new case's text is its summary. Write what operators saw in the “Symptoms "
        f"description” of {case_id} before accepting: a case is published with it."
    )
    assert f'<a href="/admin/incidents/case/{case_id}/change/">{case_id}</a>' in symptoms.group(1)


def test_the_case_document_is_folded_away_as_escaped_json(client, reviewer, new_case_proposal):
    page = proposal_page(client, reviewer, new_case_proposal)
    details = element(field_of(page, "proposed_case"), "details")
    assert " open" not in details[: details.index(">")]
    assert text_of(element(details, "summary")) == "The case document (JSON)"
    json_text = element(details, "pre")
    assert f'"id": "{new_case_proposal.case_id}"' in html.unescape(json_text)
    assert "<img" not in json_text and "&lt;img src=x onerror=alert(1)&gt;" in json_text


def test_sources_and_lookalikes_are_links_not_json(client, reviewer):
    existing = Case.objects.get(pk="IL-0428").sources.values_list("url", flat=True)[0]
    proposal = services.propose_case(
        services.NewCase(
            title="Test runs of 200B models hung on Jean Zay",
            organization="BigScience",
            published=datetime.date(2022, 3, 4),
            summary="The runs hung past 100B parameters.",
            topic=Term.objects.get(facet=Facet.TOPIC, slug="training-hang"),
            root_cause=None,
            source_urls=[existing],
        )
    )
    page = proposal_page(client, reviewer, proposal)
    sources = field_of(page, "sources")
    assert links(sources) == [(existing, existing)]
    assert "[&quot;" not in sources and '["' not in sources
    looked_like = field_of(page, "looked_like")
    assert links(looked_like) == [(reverse("admin:incidents_case_change", args=["IL-0428"]), "IL-0428")]
    assert f"IL-0428 : same source URL {existing}" in text_of(looked_like)


def test_a_correction_shows_the_case_as_it_stands(client, reviewer):
    case = Case.objects.get(pk="IL-0428")
    proposal = services.propose_correction(
        case=case, title="", text="The postmortem says 48 nodes, not 40.", source_urls=[]
    )
    page = proposal_page(client, reviewer, proposal)
    assert 'class="form-row field-proposed_case' not in page
    shown = text_of(field_of(page, "case_now"))
    assert shown.startswith(f"The case now: {case.title} IL-0428 · Published · BigScience")
    assert "Remediation Set CUDA_LAUNCH_BLOCKING=1; the hang went away" in shown
    assert "Nodes: 48" in shown
    assert text_of(field_of(page, "sources")) == "Source URLs: -"
