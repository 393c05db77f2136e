"""`/cases/`: search and browse in one page, the whole state in the URL."""

from __future__ import annotations

import re

import pytest

from incidents.models import Case
from tests.api.fixture_facts import ids_where

from .html import element, link_to, links, text_of

pytestmark = pytest.mark.django_db


def with_symptom(slug: str):
    return Case.objects.published().filter(term_links__term__slug=slug, term_links__term__facet="symptom")


def hit_ids(html: str) -> list[str]:
    return re.findall(r'<span class="case-id">(IL-\d+)</span>', element(html, "section", class_="results"))


def test_browsing_without_a_query_lists_cases_newest_first(client):
    html = client.get("/cases/").content.decode()
    newest = list(Case.objects.published().order_by("-published", "-id").values_list("id", flat=True)[:20])
    assert hit_ids(html) == newest
    total = Case.objects.published().count()
    assert f"1–20 of {total} cases, newest first." in text_of(html)


def test_a_query_ranks_cases_that_mention_it(client):
    html = client.get("/cases/?q=nccl").content.decode()
    ids = hit_ids(html)
    assert "IL-0454" not in ids  # the redis-py outage never mentions NCCL
    narrower = hit_ids(client.get("/cases/?q=nccl+cuda+graphs").content.decode())
    assert "IL-0463" in narrower[:5]  # "... ranks stuck in NCCL all-reduce under CUDA graphs"
    assert "matching “nccl”, best match first." in text_of(html)
    assert 'value="nccl"' in html  # the box keeps the query


def test_facet_sidebar_counts_each_value_over_the_whole_result(client):
    html = client.get("/cases/").content.decode()
    symptoms = text_of(element(html, "section", aria_labelledby="facet-symptom-h"))
    assert f"NCCL timeout {with_symptom('nccl-timeout').count()} cases" in symptoms
    years = text_of(element(html, "section", aria_labelledby="facet-year-h"))
    assert f"2022 {Case.objects.published().filter(published__year=2022).count()} cases" in years
    for facet in ("topic", "root_cause", "component", "organization", "accelerator"):
        assert f'id="facet-{facet}-h"' in html


def test_choosing_a_facet_value_narrows_the_results_and_shows_a_chip(client):
    html = client.get("/cases/").content.decode()
    narrowed_url = link_to(element(html, "section", aria_labelledby="facet-symptom-h"), "NCCL timeout")
    assert narrowed_url == "/cases/?symptom=nccl-timeout"
    html = client.get(narrowed_url).content.decode()
    assert sorted(hit_ids(html)) == sorted(with_symptom("nccl-timeout").values_list("id", flat=True))
    chips = element(html, "ul", class_="chips")
    assert ("/cases/", "Remove filter Symptom: NCCL timeout ×") in links(chips)
    # The selected value stays in the sidebar and removes itself when chosen again.
    selected = element(html, "li", class_="facet-value selected")
    assert 'aria-current="true"' in selected and 'href="/cases/"' in selected


def test_excluding_a_value_drops_its_cases_and_is_shown_as_a_not_chip(client):
    html = client.get("/cases/?symptom=nccl-timeout").content.decode()
    exclude_url = link_to(element(html, "section", aria_labelledby="facet-workload-h"), "exclude Inference")
    assert exclude_url == "/cases/?symptom=nccl-timeout&exclude_workload=inference"
    html = client.get(exclude_url).content.decode()
    ids = hit_ids(html)
    assert "IL-0463" not in ids  # vLLM serving hang: an inference case with NCCL timeouts
    assert "IL-0444" in ids  # Meta RSC: training jobs with NCCL timeouts
    expected = with_symptom("nccl-timeout").exclude(
        term_links__term__facet="workload", term_links__term__slug="inference"
    )
    assert sorted(ids) == sorted(expected.values_list("id", flat=True))
    assert ("/cases/?symptom=nccl-timeout", "Remove filter Not workload: Inference ×") in links(html)


def test_values_within_a_facet_combine_with_or(client):
    html = client.get("/cases/?symptom=inference-hang&symptom=data-exposure").content.decode()
    expected = ids_where(lambda d: {"Inference hang", "Data exposure"} & set(d["symptoms"]["tags"]))
    assert {"IL-0454", "IL-0463", "IL-0464"} <= set(expected) and len(expected) <= 20  # one page
    assert sorted(hit_ids(html)) == expected


def test_sort_choices_keep_the_filters(client):
    html = client.get("/cases/?workload=training&sort=oldest").content.decode()
    oldest = (
        Case.objects.published()
        .filter(term_links__term__facet="workload", term_links__term__slug="training")
        .order_by("published", "id")
    )
    assert hit_ids(html)[0] == oldest.first().id
    sort_links = dict((text, href) for href, text in links(element(html, "nav", aria_label="Sort")))
    assert sort_links == {
        "Newest first": "/cases/?workload=training&sort=newest",
        "Oldest first": "/cases/?workload=training&sort=oldest",
    }
    assert 'aria-current="true">Oldest first' in html


def test_best_match_is_offered_only_with_a_query(client):
    html = client.get("/cases/?q=hang").content.decode()
    assert "Best match" in text_of(element(html, "nav", aria_label="Sort"))
    html = client.get("/cases/?sort=relevance").content.decode()
    assert "Best match" not in text_of(element(html, "nav", aria_label="Sort"))


def test_pagination_keeps_query_and_filters(client):
    total = Case.objects.published().filter(term_links__term__slug="training").count()
    assert total > 20
    html = client.get("/cases/?workload=training&exclude_symptom=loss-spike").content.decode()
    pages = element(html, "nav", aria_label="Pages")
    assert link_to(pages, "Next") == "/cases/?workload=training&exclude_symptom=loss-spike&page=2"
    html = client.get("/cases/?workload=training&exclude_symptom=loss-spike&page=2").content.decode()
    assert link_to(element(html, "nav", aria_label="Pages"), "Previous") == (
        "/cases/?workload=training&exclude_symptom=loss-spike"
    )
    assert "21–" in text_of(html)


def test_a_page_past_the_end_redirects_to_the_last_page(client):
    response = client.get("/cases/?topic=checkpoint-storage&page=99")
    assert response.status_code == 302
    assert response["Location"] == "/cases/?topic=checkpoint-storage"


def test_an_empty_result_explains_itself_and_suggests_removing_a_filter(client):
    html = client.get("/cases/?topic=checkpoint-storage&symptom=data-exposure").content.decode()
    assert "No cases have all these filters." in text_of(html)
    suggestions = links(element(html, "ul", class_="suggestions"))
    storage = Case.objects.published().filter(term_links__term__slug="checkpoint-storage").count()
    exposure = with_symptom("data-exposure").count()
    # Both ways out, the one that finds more cases first.
    expected = [
        (storage, ("/cases/?topic=checkpoint-storage", "Remove symptom “Data exposure”")),
        (exposure, ("/cases/?symptom=data-exposure", "Remove topic “Checkpoint and storage failures”")),
    ]
    assert suggestions == [link for _, link in sorted(expected, key=lambda e: -e[0])]
    text = text_of(element(html, "ul", class_="suggestions"))
    assert f"Remove topic “Checkpoint and storage failures” ({exposure} case" in text
    assert f"Remove symptom “Data exposure” ({storage} case" in text


def test_an_empty_search_suggests_dropping_the_query_or_the_filters(client):
    html = client.get("/cases/?q=zzzyqx&topic=interconnect").content.decode()
    assert "No cases match “zzzyqx” with this filter." in text_of(html)
    # Dropping the filter still finds nothing, so only dropping the query is offered.
    hrefs = [href for href, _ in links(element(html, "ul", class_="suggestions"))]
    assert hrefs == ["/cases/?topic=interconnect"]


def test_an_empty_search_with_no_way_out_gives_advice(client):
    html = client.get("/cases/?q=zzzyqx").content.decode()
    assert "No case uses these words. Try a shorter query" in text_of(html)
    assert 'href="/match/"' in element(html, "div", class_="empty")


def test_malformed_parameters_are_ignored_not_errors(client):
    # A NUL byte is refused before any view (tests/reliability/test_health_and_nul.py).
    response = client.get("/cases/?year=abc&year=20x1&page=-3&sort=bogus&topic=")
    assert response.status_code == 200
    assert 'class="chips"' not in response.content.decode()  # no filter chip: nothing applied


def test_the_page_links_its_json_twin_with_the_same_query(client):
    response = client.get("/cases/?q=hang&symptom=training-hang&sort=newest&page=1")
    expected = "/api/cases/?q=hang&symptom=training-hang&sort=newest"
    assert response["Link"] == f'<{expected}>; rel="alternate"; type="application/json"'
    assert f'<link rel="alternate" type="application/json" href="{expected.replace("&", "&amp;")}">' in (
        response.content.decode()
    )


def test_a_parameter_the_page_does_not_read_is_named_with_the_nearest_one(client):
    page = client.get("/cases/?topc=interconnect&q=nccl").content.decode()
    assert "Topc: is not a parameter of this page, so it was not used. Did you mean topic?" in page
    # The parameters the page reads raise no such notice.
    known = client.get("/cases/?topic=interconnect&exclude_symptom=nccl-timeout&min_nodes=2&sort=newest")
    assert "is not a parameter of this page" not in known.content.decode()


def test_ordering_is_read_as_the_api_reads_it_and_never_said_unused(client):
    # The page ordered by `ordering` (the shared parser reads it) while a notice said it was
    # not a parameter of the page; a bad value got both notices (a new user's walkthrough).
    page = client.get("/cases/?q=nccl&ordering=-published").content.decode()
    assert "is not a parameter of this page" not in page
    assert "newest first" in page
    refused = client.get("/cases/?q=nccl&ordering=newest").content.decode()
    assert "is not a parameter of this page" not in refused
    assert "Did you mean" in refused and "-published" in refused
