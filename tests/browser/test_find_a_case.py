"""A person searches a symptom, narrows with a facet, excludes a value, opens a case and
follows a similar case; another pastes a log on the home page and lands on its case."""

from __future__ import annotations

import re

import pytest

from incidents.models import Case
from incidents.search import search_cases
from tests.api.fixture_facts import has_symptom, ids_where

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# `kubectl describe pod` of a job whose image cannot be pulled: IL-0459's signature.
PULL_LOG = """Events:
  Warning  Failed     11m (x4 over 12m)  kubelet  Failed to pull image "reg/train:v3": timeout
  Normal   BackOff    2m (x40 over 11m)  kubelet  Back-off pulling image "reg/train:v3"
  Warning  Failed     2m (x40 over 11m)  kubelet  Error: ImagePullBackOff
"""


def result_ids(page) -> list[str]:
    """The matches listed (not the "partial matches" section after them)."""
    return page.locator("section.results > .case-card .case-id").all_inner_texts()


def test_search_narrow_exclude_open_and_follow_a_similar_case(open_page):
    page = open_page("/")
    page.get_by_label("Describe what you see").fill("NCCL timeout")
    page.get_by_role("button", name="Search").click()
    page.wait_for_url(re.compile(r"/cases/\?q=NCCL\+timeout$"))
    searched = result_ids(page)
    assert searched == [h.case.id for h in search_cases(query="NCCL timeout", limit=len(searched)).hits]

    # Narrow: keep only training cases.
    page.locator("#facet-workload-h + ul").get_by_role("link", name=re.compile(r"^Training \d+")).click()
    page.wait_for_url(re.compile(r"workload=training"))
    narrowed = result_ids(page)
    training = set(
        Case.objects.filter(
            term_links__term__facet="workload", term_links__term__slug="training"
        ).values_list("id", flat=True)
    )
    assert narrowed and set(narrowed) <= training and set(narrowed) <= set(searched)
    assert page.get_by_role("link", name="Remove filter Workload: Training", exact=True).is_visible()

    # Exclude: drop the cases that involve the component the facet lists first.
    link = (
        page.locator("section.facet", has=page.locator("#facet-component-h"))
        .get_by_role("link", name=re.compile(r"^exclude "))
        .first
    )
    name = link.get_attribute("aria-label") or link.inner_text()
    name = re.sub(r"^exclude\s+", "", name).strip()
    slug = re.search(r"exclude_component=([\w-]+)", link.get_attribute("href")).group(1)
    link.click()
    page.wait_for_url(re.compile(rf"exclude_component={slug}"))
    excluded = result_ids(page)
    involved = set(Case.objects.filter(term_links__term__slug=slug).values_list("id", flat=True))
    assert excluded and not set(excluded) & involved
    assert page.get_by_role("link", name=f"Remove filter Not component: {name}", exact=True).is_visible()
    assert f"q=NCCL+timeout&workload=training&exclude_component={slug}" in page.url

    # Open the first case, then follow its most similar case.
    first = excluded[0]
    page.locator("section.results .case-card h3 a").first.click()
    page.wait_for_url(re.compile(rf"/cases/{first}$"))
    assert page.locator("h1").inner_text().replace("\n", " ") == Case.objects.get(id=first).title
    # The first computed neighbour: entries "linked by an editor" come first and carry no score.
    computed = page.locator("#related-h ~ ol > li").filter(has_not=page.locator(".badge.linked")).first
    target = computed.locator(".similar-meta .case-id").inner_text()
    similar = computed.locator("a.similar-link")
    similar.click()
    page.wait_for_url(re.compile(rf"/cases/{target}$"))
    assert page.locator("p.case-id").first.inner_text().startswith(target)


def test_removing_a_chip_brings_the_cases_back(open_page):
    hung = ids_where(has_symptom("Inference hang"))
    others = ids_where(lambda d: d["id"] in hung and d["organization"] != "Community report")
    assert "IL-0463" in set(hung) - set(others) and others and len(hung) <= 20  # one page
    page = open_page("/cases/?symptom=inference-hang&exclude_organization=Community+report")
    assert sorted(result_ids(page)) == others
    page.get_by_role("link", name="Remove filter Not organization: Community report", exact=True).click()
    page.wait_for_url(re.compile(r"/cases/\?symptom=inference-hang$"))
    assert sorted(result_ids(page)) == hung


def test_paste_a_log_on_the_home_page_and_land_on_the_right_case(open_page):
    page = open_page("/")
    page.get_by_label(re.compile("^Log lines")).fill(PULL_LOG)
    page.get_by_role("button", name="Find matching cases").click()
    page.wait_for_url(re.compile(r"/match/$"))
    assert page.locator("section.log-hits .case-id").first.inner_text() == "IL-0459"
    assert "ImagePullBackOff" in page.locator("table.matched-lines").first.inner_text()
    page.locator("section.log-hits .case-card h3 a").first.click()
    page.wait_for_url(re.compile(r"/cases/IL-0459$"))
    assert "IL-0459" in page.title()


def test_the_keyboard_reaches_the_content_first(open_page):
    page = open_page("/cases/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#main"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "q"  # the search box comes first


def test_the_keyboard_reaches_the_filters_without_tabbing_through_every_result(open_page):
    page = open_page("/cases/?q=NCCL+timeout")
    assert page.viewport_size["width"] > 800  # filters beside the results
    assert page.locator("article.case-card, .case-card").count() > 5
    link = page.locator("a.to-filters")
    assert link.bounding_box()["x"] < 0  # out of sight until focused
    page.locator("#q").focus()
    for _ in range(14):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.className") == "to-filters":
            break
    else:
        raise AssertionError("no 'Jump to filters' within 14 presses of the search box")
    box = link.bounding_box()
    assert box["x"] >= 0 and box["y"] >= 0 and box["width"] > 0  # shown while focused
    page.keyboard.press("Enter")
    assert page.evaluate("location.hash") == "#filters-h"
