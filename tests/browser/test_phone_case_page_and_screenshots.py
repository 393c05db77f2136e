"""At 375 px the case page fits: the scale table shows every value beside its column name and
every outcome, inline code keeps short options whole, the navigation is one row, and no page
scrolls sideways. Screenshots of the main pages at 1280 and 375 px (light, and the case page
dark) go to var/screenshots/, linked from the README."""

from __future__ import annotations

import pytest

from incidents.models import Case

from .conftest import SCREENSHOTS, run_axe

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 375, "height": 812}
SIDEWAYS = "[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]"


def test_the_scale_table_shows_every_column_and_outcome_on_a_phone(open_page):
    page = open_page("/cases/IL-0428", **PHONE)
    table = page.locator("table.scale-table").first
    headers = [h.strip() for h in table.locator("thead th").all_inner_texts()]
    assert "Outcome" in headers and "Model size (parameters)" in headers
    cells = page.evaluate(
        """() => [...document.querySelector('table.scale-table').querySelectorAll('tbody td')]
        .filter(td => getComputedStyle(td).display !== 'none')
        .map(td => { const r = td.getBoundingClientRect();
          return {label: getComputedStyle(td, '::before').content.replace(/^"|"$/g, ''),
                  left: r.left, right: r.right, height: r.height, text: td.innerText.trim()}; })"""
    )
    rows = table.locator("tbody tr").count()
    outcomes = [c for c in cells if c["label"] == "Outcome"]
    assert len(outcomes) == rows  # every row shows its outcome...
    assert {c["text"] for c in outcomes} <= {"Worked", "Failed", "Intermittent", "Degraded", "Unknown"}
    for cell in cells:  # ...and every shown value sits on screen beside its column's name
        assert cell["label"] in headers, cell
        assert 0 <= cell["left"] and cell["right"] <= PHONE["width"] and cell["height"] > 0, cell
    # Every column with a value somewhere is named at least once.
    named = {c["label"] for c in cells}
    assert named == {h for h in headers if table.locator(f'td[data-label="{h}"]').count()}
    widths = page.evaluate(SIDEWAYS)
    assert widths[0] <= PHONE["width"] and widths[1] <= PHONE["width"], widths


def test_inline_code_keeps_short_options_whole_and_unknowns_take_one_line(open_page):
    page = open_page("/cases/IL-0428", **PHONE)
    whole = page.evaluate(
        "[...document.querySelectorAll('code .nowrap')].map(s => [s.textContent, s.getClientRects().length])"
    )
    assert ["--gres=gpu:0", 1] in whole
    assert all(lines == 1 for _, lines in whole), whole
    line = page.locator("#not-known")
    assert line.inner_text().startswith("Not known from the sources: severity, users affected")
    assert page.get_by_text("not known", exact=True).count() == 0


def test_the_navigation_is_one_row_on_a_phone(open_page):
    page = open_page("/cases/IL-0428", **PHONE)
    tops = page.evaluate(
        "[...document.querySelectorAll('header.site nav a')]"
        ".map(a => Math.round(a.getBoundingClientRect().top))"
    )
    assert len(tops) == 5 and len(set(tops)) == 1, tops
    # A short label shows where one is needed; the full name stays for screen readers.
    assert page.get_by_role("link", name="Match a log").is_visible()


@pytest.mark.parametrize("width", [1280, 360])
def test_the_vocabulary_is_called_vocabulary_at_every_width(open_page, width):
    """The phone navigation said "Terms" where the desktop one, the page's heading, its
    breadcrumbs, the API (`/api/vocab/`, "The whole vocabulary") and the MCP tool `vocab`
    say "Vocabulary": one name now, one row still at 360 px."""
    page = open_page("/vocab/", width=width, height=800)
    link = page.locator("header.site nav a[href='/vocab/']")
    assert link.inner_text() == "Vocabulary"
    assert page.locator("h1").inner_text() == "Vocabulary"
    tops = page.evaluate(
        "[...document.querySelectorAll('header.site nav a')]"
        ".map(a => Math.round(a.getBoundingClientRect().top))"
    )
    assert len(set(tops)) == 1, tops


PAGES = {
    "home": "/",
    "search": "/cases/?q=nccl+timeout",
    "case": "/cases/IL-0428",
    "stats": "/stats",
    "match": "/match/",
}
LOG = "NCCL WARN Timeout waiting for connect from peer 3\nXid 79: GPU has fallen off the bus"


@pytest.mark.parametrize("width", [1280, 375])
def test_screenshots_of_the_main_pages_and_no_sideways_scrolling(open_page, width):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, path in PAGES.items():
        page = open_page(path, width=width, height=900)
        if name == "match":
            page.get_by_label("Log text").fill(LOG)
            page.get_by_role("button", name="Find matching cases").click()
            page.wait_for_url("**/match/")
            assert page.locator("section.log-hits .case-card").count() >= 1
        widths = page.evaluate(SIDEWAYS)
        assert widths[0] <= width and widths[1] <= width, (path, widths)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{width}.png"), full_page=True)


def test_dark_mode_follows_the_system_setting(browser, site):
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(viewport=PHONE, color_scheme=scheme)
        page = context.new_page()
        page.goto(site + "/cases/IL-0428")
        colours[scheme] = page.evaluate(
            "[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]"
        )
        if scheme == "dark":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "case-375-dark.png"), full_page=True)
        context.close()
    assert colours["light"] == ["rgb(255, 255, 255)", "rgb(27, 31, 36)"]
    assert colours["dark"] == ["rgb(13, 17, 23)", "rgb(230, 237, 243)"]


def test_list_entries_show_a_bold_headline_and_the_rest_in_normal_weight(open_page):
    page = open_page("/cases/")
    first = page.locator("section.results .case-card .case-title a").first
    weights = first.evaluate(
        "a => [getComputedStyle(a.querySelector('.headline')).fontWeight, getComputedStyle(a).fontWeight]"
    )
    assert int(weights[0]) >= 600 and int(weights[1]) == 400
    case = Case.objects.published().order_by("-published", "-id").first()
    assert first.inner_text() == case.title


def test_a_table_too_wide_for_a_tablet_says_so_and_keeps_its_first_column(open_page):
    page = open_page("/cases/IL-0428", width=900, height=900)
    wrap = page.locator(".scale-wrap").first
    overflows = wrap.evaluate("w => w.scrollWidth > w.clientWidth + 1")
    assert page.locator(".scroll-hint").first.is_visible() == overflows
    first = page.locator("table.scale-table tbody td").first
    assert first.evaluate("td => getComputedStyle(td).position") == "sticky"
    # Scrolled to the end, the outcome column is on screen while the first column stays put.
    before = first.bounding_box()["x"]
    wrap.evaluate("w => { w.scrollLeft = w.scrollWidth; }")
    assert first.bounding_box()["x"] == before
    outcome = page.locator("table.scale-table tbody td.outcome-cell").first.bounding_box()
    assert outcome["x"] + outcome["width"] <= 900


@pytest.mark.parametrize("path", ["/", "/cases/?q=nccl+timeout", "/cases/IL-0428", "/stats"])
def test_dark_mode_passes_axe_too(browser, site, path):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="dark")
    page = context.new_page()
    page.goto(site + path)
    serious = [v for v in run_axe(page) if v["impact"] in ("serious", "critical")]
    context.close()
    assert serious == []
