"""Pages at phone width (360 px) scroll only vertically; axe-core finds no serious or
critical accessibility violation on any page, and none at all (moderate ones too: two
landmarks of one name, an unlabelled search) on the pages that hold landmarks."""

from __future__ import annotations

import pytest

from .conftest import SCREENSHOTS, run_axe

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAGES = [
    "/",
    "/cases/?q=nccl&topic=training&exclude_component=deepspeed",
    "/cases/?topic=checkpoint-storage&symptom=data-exposure",
    # A partial match like the first hit, its why linking that hit's page.
    "/cases/?q=serialize-image-pulls",
    "/cases/IL-0428",
    "/topics/",
    "/topics/interconnect",
    "/vocab/",
    "/vocab/symptom/nccl-timeout",
    "/stats",
    "/match/",
    "/propose/",
    "/cases/IL-0428/history",
    "/refs/",
]


def test_pages_fit_a_360px_phone_without_horizontal_scrolling(open_page):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for number, path in enumerate(PAGES):
        page = open_page(path, width=360, height=740)
        widths = page.evaluate(
            "[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]"
        )
        assert widths[0] <= 360 and widths[1] <= 360, f"{path} scrolls sideways: {widths}"
        page.screenshot(path=str(SCREENSHOTS / f"phone-{number:02d}.png"), full_page=True)


@pytest.mark.parametrize("width", [1280, 360])
def test_axe_finds_no_serious_violations(open_page, width):
    found = {}
    for path in PAGES:
        page = open_page(path, width=width, height=900)
        serious = [v for v in run_axe(page) if v["impact"] in ("serious", "critical")]
        if serious:
            found[path] = serious
    assert found == {}


def test_axe_checks_the_log_results_page_too(open_page):
    page = open_page("/match/")
    page.get_by_label("Log text").fill("NCCL WARN Timeout\nXid 79: GPU has fallen off the bus")
    page.get_by_role("button", name="Find matching cases").click()
    page.wait_for_url("**/match/")
    assert [v for v in run_axe(page) if v["impact"] in ("serious", "critical")] == []


# Pages with landmarks beyond the header's: each holds several (sections, scroll boxes,
# search forms), which must be told apart by name. A case page's scale section and its
# table's scroll box, and each version's section and scroll box on the history page, had
# one name; /refs/ had two unnamed search forms.
LANDMARK_PAGES = [
    "/cases/IL-0428",
    "/cases/IL-0428/history",
    "/refs/",
    "/refs/?ref=NVIDIA/nccl%231116",
    "/propose/",
]


@pytest.mark.parametrize("path", LANDMARK_PAGES)
def test_axe_finds_no_violation_of_any_impact_on_pages_with_landmarks(open_page, path):
    page = open_page(path)
    assert [(v["id"], v["impact"], v["nodes"]) for v in run_axe(page)] == []


def test_form_fields_are_tall_enough_to_tap_on_a_phone(open_page):
    # WCAG 2.2's minimum target size is 24 px; the browser's own input style (13.3 px text,
    # 1 px padding) made the proposal form's fields 21 px tall at 390 px wide. (Radio buttons
    # are chosen by their labels.)
    page = open_page("/propose/", width=390, height=844)
    heights = page.evaluate(
        "[...document.querySelectorAll('.proposal-form input:not([type=hidden]):not([type=checkbox])"
        ":not([type=radio]), .proposal-form select, .proposal-form textarea')]"
        ".filter(e => e.offsetParent !== null).map(e => [e.name, e.getBoundingClientRect().height])"
    )
    assert len(heights) >= 5
    assert [name for name, height in heights if height < 24] == []


def test_a_long_code_name_in_the_filters_does_not_run_into_its_neighbours(open_page):
    # IBV_WC_RETRY_EXC_ERR, one word wider than the column, pushed its count over the
    # "exclude" link beside it.
    page = open_page("/cases/?topic=interconnect", width=1280, height=900)
    overlapping = page.evaluate(
        """[...document.querySelectorAll('.facet-value')].filter(li => {
             const toggle = li.querySelector('.facet-toggle'), exclude = li.querySelector('.facet-exclude');
             const count = toggle.querySelector('.count').getBoundingClientRect();
             return toggle.scrollWidth > toggle.clientWidth + 0.5
               || (exclude && count.right > exclude.getBoundingClientRect().left + 0.5);
           }).map(li => li.querySelector('.facet-name').textContent.trim())"""
    )
    names = page.evaluate("[...document.querySelectorAll('.facet-name')].map(e => e.textContent.trim())")
    assert "IBV_WC_RETRY_EXC_ERR" in names
    assert overlapping == []
