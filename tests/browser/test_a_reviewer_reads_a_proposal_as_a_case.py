"""A reviewer opens a new case's proposal in the admin and reads its draft as a case: the
sections readable, lists with their markers beside the text (the admin's own rules indent a
field's lists by the label's width and drop the markers), and the case document as JSON
folded away until asked for (a new user's walkthrough: it was JSON, or a link away)."""

from __future__ import annotations

import datetime

import pytest

from incidents.models import Facet, Term
from incidents.proposals import services
from tests.editorial.conftest import make_user

from .conftest import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_draft_reads_as_a_case_and_its_json_opens_on_demand(open_page):
    proposal = services.propose_case(
        services.NewCase(
            title="All-reduce hung at 512 GPUs after a driver update",
            organization="Community report",
            published=datetime.date(2025, 3, 1),
            summary="After the **driver** update:\n\n- rank 3 sat in `ncclAllReduce`\n- the watchdog fired",
            topic=Term.objects.get(facet=Facet.TOPIC, slug="training-hang"),
            root_cause=None,
            source_urls=["https://example.org/postmortem"],
        )
    )
    make_user("rita", "reviewer")
    path = f"/admin/incidents/proposal/{proposal.pk}/change/"
    page = open_page(f"/admin/login/?next={path}")
    sign_in(page, "rita", path)

    case = page.locator(".field-proposed_case .proposal-case")
    assert case.locator("dt").all_inner_texts()[:4] == ["Topics", "Summary", "Symptoms", "Root cause"]
    summary_items = case.locator("dd").nth(1).locator("li")
    assert summary_items.all_inner_texts() == ["rank 3 sat in ncclAllReduce", "the watchdog fired"]
    marker, indent = summary_items.first.evaluate(
        """li => [
            getComputedStyle(li).listStyleType,
            li.getBoundingClientRect().left - li.closest('.proposal-case').getBoundingClientRect().left,
        ]"""
    )
    assert marker == "disc"
    assert indent < 60  # px: beside the text, not 170 px off under the admin's field rule
    source = page.locator(".field-sources li")
    assert source.inner_text() == "https://example.org/postmortem"
    assert source.evaluate("li => getComputedStyle(li).listStyleType") == "disc"

    document = case.locator("details pre")
    assert not document.is_visible()
    case.get_by_text("The case document (JSON)").click()
    assert document.is_visible()
    assert f'"id": "{proposal.case_id}"' in document.inner_text()
