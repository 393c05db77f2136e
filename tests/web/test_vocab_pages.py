"""`/vocab/` and `/vocab/<facet>/<slug>`; `Term.get_absolute_url` points at them."""

from __future__ import annotations

import pytest

from incidents.models import Case, Term

from .html import element, link_to, text_of

pytestmark = pytest.mark.django_db


def test_term_urls_point_at_term_pages():
    assert Term.objects.get(facet="symptom", slug="nccl-timeout").get_absolute_url() == (
        "/vocab/symptom/nccl-timeout"
    )
    assert Term.objects.get(facet="root_cause", slug="hardware-fault").get_absolute_url() == (
        "/vocab/root-cause/hardware-fault"
    )
    assert Term.objects.get(facet="topic", slug="interconnect").get_absolute_url() == "/topics/interconnect"
    assert (
        Term.objects.get(facet="workload", slug="training").get_absolute_url() == "/vocab/workload/training"
    )
    assert Term.objects.get(facet="component", slug="nccl").get_filter_url() == "/cases/?component=nccl"


def test_the_index_lists_every_facet_and_term_with_counts(client):
    html = client.get("/vocab/").content.decode()
    for segment, title in (
        ("topic", "Topics"),
        ("symptom", "Symptom tags"),
        ("root-cause", "Root-cause categories"),
        ("component", "Components"),
    ):
        assert f'<h2 id="{segment}">{title}</h2>' in html
    # Error codes have their own index, /codes/.
    assert Term.objects.exclude(facet="error_code").count() == html.count('<li>\n      <h3><a href="')
    nccl = (
        Case.objects.published()
        .filter(term_links__term__slug="nccl", term_links__term__facet="component")
        .count()
    )
    assert f"NCCL {nccl} case" in text_of(element(html, "section", aria_labelledby="component"))


def test_a_symptom_page_shows_description_synonyms_cases_and_cooccurring_terms(client):
    html = client.get("/vocab/symptom/nccl-timeout").content.decode()
    term = Term.objects.get(facet="symptom", slug="nccl-timeout")
    text = text_of(html)
    assert "<h1>NCCL timeout</h1>" in html
    assert term.description in text
    assert "Also called: watchdog timeout, collective timeout" in text
    cases = Case.objects.published().filter(term_links__term=term)
    for case_id in cases.values_list("id", flat=True):
        assert f'href="/cases/{case_id}"' in html
    with_it = element(html, "section", aria_labelledby="with-h")
    shared = cases.filter(term_links__term__slug="training-job-failure").count()
    assert f"Training job failure {shared} shared case" in text_of(with_it)
    assert link_to(with_it, "Training job failure") == (
        "/cases/?symptom=nccl-timeout&symptom=training-job-failure"
    )
    assert "NCCL timeout" not in text_of(with_it)  # a term does not co-occur with itself
    assert link_to(html, "Search within its") == "/cases/?symptom=nccl-timeout"
    assert 'href="/feeds/symptoms/nccl-timeout.atom"' in html


def test_a_root_cause_page_lists_its_cases(client):
    html = client.get("/vocab/root-cause/numerical-instability").content.decode()
    expected = Case.objects.published().filter(root_cause_category__slug="numerical-instability")
    assert expected.count() >= 3
    for case_id in expected.values_list("id", flat=True):
        assert f'href="/cases/{case_id}"' in html
    assert "Numerical instability: root-cause category · incidentlib" in html


def test_topic_vocab_urls_redirect_to_topic_pages(client):
    response = client.get("/vocab/topic/interconnect")
    assert response.status_code == 301 and response["Location"] == "/topics/interconnect"


def test_a_former_topic_redirects_to_its_workload_page(client):
    response = client.get("/topics/training")
    assert response.status_code == 301 and response["Location"] == "/vocab/workload/training"
    html = client.get("/vocab/workload/training").content.decode()
    training = Case.objects.published().filter(terms__facet="workload", terms__slug="training").count()
    assert 'href="/cases/?workload=training"' in html and str(training) in html


@pytest.mark.parametrize("url", ["/vocab/nonsense/x", "/vocab/symptom/no-such-symptom"])
def test_unknown_facets_and_terms_are_404(client, url):
    assert client.get(url).status_code == 404
