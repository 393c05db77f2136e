"""A reader proposes a case: the form warns that it looks like an existing case, the
proposal is sent, its private page shows it received; a reviewer writes what operators saw
in its draft, accepts it in the admin and the case appears in search."""

from __future__ import annotations

import re

import pytest

from incidents.models import Case, Source
from incidents.proposals.models import Proposal
from tests.editorial.conftest import make_user

from .conftest import run_axe, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TITLE = "Object storage throttling stalled checkpoint uploads for a week of training"
SYMPTOMS = "Checkpoint saves took hours; the object store answered 503 SlowDown to most uploads."


def test_propose_see_the_duplicate_warning_submit_and_get_accepted(open_page, site, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api": None, "api-heavy": None, "proposals": "100/minute"},
    }
    existing = Source.objects.filter(case_id="IL-0428").values_list("url", flat=True).first()
    page = open_page("/propose/")

    page.get_by_label("Title").fill(TITLE)
    page.get_by_label("Organization").fill("Community report")
    page.get_by_label("Date of the source").fill("2025-02-03")
    page.get_by_label("What happened (new case) or what is wrong (correction)").fill(
        "Uploads of checkpoint shards were throttled by the object store; the job waited on each save."
    )
    page.get_by_label("Topic").select_option(label="Checkpoint and storage failures")
    # Pasting a source that an existing case cites: the form says so before sending.
    page.get_by_label("Source URLs").fill(existing)
    warning = page.locator("#duplicate-warning")
    warning.wait_for(state="visible")
    assert "IL-0428" in page.locator("#lookalike-list li.duplicate").first.inner_text()

    # The proposer checks and replaces it with the account they meant.
    # Let the form's last look-up finish first (the test database is one SQLite file in
    # memory: a read still running would lock the write).
    with page.expect_response(lambda r: "/api/proposals/lookalikes" in r.url):
        page.get_by_label("Source URLs").fill("https://example.org/blog/object-store-throttling")
    page.wait_for_load_state("networkidle")
    page.get_by_role("button", name="Send the proposal").click()
    page.wait_for_url(re.compile(r"/proposals/[\w-]+$"))
    status_url = page.url
    assert page.locator("#proposal-status").inner_text() == "Received"
    proposal = Proposal.objects.get()
    assert Case.objects.get(id=proposal.case_id).status == "draft"

    # A reviewer signs in to the admin and accepts it from the review queue.
    make_user("rita", "reviewer")
    admin = open_page("/admin/login/?next=/admin/incidents/proposal/")
    sign_in(admin, "rita", "/admin/incidents/proposal/")
    admin.locator("input[name=_selected_action]").first.check()
    admin.locator("select[name=action]").select_option("accept")
    admin.get_by_role("button", name="Go").click()
    admin.locator("ul.messagelist").wait_for()
    # Its draft says no more than the proposal's text, its summary: accepting is refused,
    # naming the field to write, until the reviewer writes what operators saw.
    refused = admin.locator("ul.messagelist").inner_text()
    assert f"its draft {proposal.case_id} has no “Symptoms description”" in refused
    admin.goto(f"{site}/admin/incidents/case/{proposal.case_id}/change/")
    admin.get_by_label("Symptoms description").fill(SYMPTOMS)
    admin.locator("input[name=_save]").click()
    admin.wait_for_url(re.compile(r"/admin/incidents/case/$"))
    admin.goto(f"{site}/admin/incidents/proposal/")
    admin.locator("input[name=_selected_action]").first.check()
    admin.locator("select[name=action]").select_option("accept")
    admin.get_by_role("button", name="Go").click()
    admin.locator("ul.messagelist").wait_for()
    assert "accepted" in admin.locator("ul.messagelist").inner_text()

    page.goto(status_url)
    assert page.locator("#proposal-status").inner_text() == "Accepted"
    case_id = proposal.case_id
    page.get_by_role("link", name=case_id).click()
    page.wait_for_url(re.compile(rf"/cases/{case_id}$"))
    assert page.locator("h1").inner_text().startswith("Object storage throttling stalled")
    assert SYMPTOMS in page.locator("main").inner_text()

    page.goto(f"{site}/cases/?q=object+storage+throttling")
    assert case_id in page.locator("section.results .case-id").all_inner_texts()


def test_a_refused_proposal_focuses_the_error_summary_and_titles_the_page_error(open_page):
    # GOV.UK's pattern: focus stayed on BODY and the title said nothing, so a screen reader
    # user did not hear that the form came back refused.
    page = open_page("/propose/")
    page.get_by_label("Title").fill("short")
    page.get_by_role("button", name="Send the proposal").click()
    page.wait_for_load_state()
    assert page.title() == "Error: Propose a case or a correction · incidentlib"
    focused = page.evaluate("[document.activeElement.id, document.activeElement.getAttribute('role')]")
    assert focused == ["error-summary", "alert"]
    summary = page.locator("#error-summary")
    assert summary.get_by_role("heading").inner_text() == "There is a problem"
    errors = summary.get_by_role("link").all_inner_texts()
    assert "Title: must be at least 10 characters long; it has 5" in errors  # the API's words
    # Each error leads to its field.
    summary.get_by_role("link", name="Title: must be at least").click()
    assert page.evaluate("document.activeElement.id") == "id_title"
    assert [v for v in run_axe(page) if v["impact"] in ("serious", "critical")] == []


def test_a_case_page_links_a_correction_of_that_case(open_page):
    page = open_page("/cases/IL-0428")
    page.get_by_role("link", name="Propose a correction").click()
    page.wait_for_url("**/propose/?case_id=IL-0428")
    assert page.get_by_label("Case to correct").input_value() == "IL-0428"
    assert page.get_by_role("radio", name="Correction", exact=True).is_checked()
    page.get_by_role("link", name="Propose a case").click()
    page.wait_for_url("**/propose/")
