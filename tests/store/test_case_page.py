"""The IL-0428 page shows the content of every section."""

from __future__ import annotations

import json
import re

import pytest

from tests.conftest import VOCAB_FILE, load_fixture

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(client) -> str:
    response = client.get("/cases/IL-0428")
    assert response.status_code == 200
    return response.content.decode()


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def section(html: str, heading_id: str) -> str:
    """Text of the <section> whose heading has `heading_id`."""
    match = re.search(rf'<section aria-labelledby="{heading_id}".*?</section>', html, re.S)
    assert match, heading_id
    return text_of(match.group(0))


def test_header_has_title_organization_dates_and_topics(page):
    head = text_of(page.split('<div class="two-col">')[0])
    assert "Test runs of 100B-200B models on 320-384 A100 GPUs hung" in head
    assert "BigScience" in head
    assert "reported 4 March 2022" in head
    assert "occurred" not in head  # unknown: named once in the "not known" line instead
    names = {t["slug"]: t["name"] for t in json.loads(VOCAB_FILE.read_text())["topics"]}
    topics = [names[slug] for slug in load_fixture("IL-0428")["topics"]]
    assert topics
    for topic in topics:
        assert topic in head


def test_unknown_facts_collapse_into_one_line(page):
    facts = section(page, "facts-h")
    assert "Scope Test runs of 100B-200B models" in facts
    assert "not known" not in facts
    for label in ("Severity", "Users affected", "Region", "TTD", "TTR"):
        assert label not in facts
    line = re.search(r'<p class="not-known" id="not-known">(.*?)</p>', page, re.S)
    assert line, "no 'not known' line"
    assert text_of(line.group(1)).strip() == (
        "Not known from the sources: severity, users affected, region, TTD, TTR, "
        "when it occurred, how it was detected."
    )
    assert page.count("not known") == 0 and page.count("Not known") == 1


def test_environment_lists_cluster_accelerators_nodes_and_linked_components(page):
    env = section(page, "env-h")
    assert "Cluster Jean Zay" in env
    assert "Accelerator NVIDIA A100 80GB" in env
    assert "Accelerator count 384" in env
    assert "Nodes 48" in env
    assert "Megatron-LM DeepSpeed NCCL PyTorch apex FusedAdam Slurm py-spy" in env
    assert 'href="/cases/?component=apex-fusedadam"' in page


def test_summary_and_symptoms_are_rendered_markdown_with_tag_links(page):
    assert "<code>CUDA_LAUNCH_BLOCKING=1</code>" in page
    assert "Ahead of the 176B-parameter tr11 training" in section(page, "summary-h")
    symptoms = section(page, "symptoms-h")
    # The tags as the case lists them (the fact-check dropped NCCL timeout: no collective timed out).
    assert "Training job failure GPU unavailable Node NotReady Training hang" in symptoms
    assert "the ranks had fallen out of step" in symptoms
    assert 'href="/cases/?symptom=training-hang"' in page


def test_scale_table_shows_outcomes_by_word_and_colour(page):
    table = section(page, "scale-h-1")
    assert "Which configurations hung (CUDA_LAUNCH_BLOCKING=0 unless noted)" in table
    assert "Model size (parameters)" in table
    assert "200B 320 CUDA_LAUNCH_BLOCKING=1 Worked 87.78 TFLOPs" in table
    assert "100B 40 Failed hung reliably" in table
    assert page.count('<tr class="outcome-failed">') == 4
    assert page.count('<tr class="outcome-intermittent">') == 2
    assert page.count('<tr class="outcome-worked">') == 6


def test_root_cause_detection_and_remediation(page):
    cause = section(page, "cause-h")
    assert "Category: Root cause unknown" in cause
    assert "Suspects: apex FusedAdam" in cause
    assert "Trigger: Growing the test model past about 100B parameters" in cause
    assert 'id="detection-h"' not in page  # unknown: named in the "not known" line
    assert "Set CUDA_LAUNCH_BLOCKING=1; the hang went away" in section(page, "remediation-h")


def test_action_items_lessons_checks_sources_and_related(page):
    assert "None published." in section(page, "actions-h")
    assert "start it just before train_step" in section(page, "lessons-h")
    checks = section(page, "checks-h")
    assert "Check your cluster for this" in checks
    assert "can py-spy dump every rank?" in checks
    assert (
        'href="https://github.com/bigscience-workshop/bigscience/blob/master/train/'
        'tr11-176B-ml/hang-debug.md"'
    ) in page
    assert "BigScience tr11-176B chronicles prequel: the hanging issue at 320-384 A100 GPUs" in section(
        page, "sources-h"
    )
    related = re.search(r'<section aria-labelledby="related-h".*?</section>', page, re.S).group(0)
    for case_id in ("IL-0431", "IL-0433"):
        assert f'<a class="similar-link" href="/cases/{case_id}">' in related
        assert re.search(rf"{case_id}</span> · <span class=\"badge linked\">linked by an editor", related)


def test_it_links_its_json_twin(page, client):
    assert '<link rel="alternate" type="application/json" href="/api/cases/IL-0428">' in page
    assert client.get("/cases/IL-0428")["Link"] == (
        '</api/cases/IL-0428>; rel="alternate"; type="application/json"'
    )


def test_lower_case_id_redirects_to_the_canonical_id(client):
    response = client.get("/cases/il-0428")
    assert response.status_code == 301
    assert response["Location"] == "/cases/IL-0428"


def test_unknown_id_gives_a_404_page(client):
    response = client.get("/cases/IL-9999")
    assert response.status_code == 404
    assert "Nothing lives at <code>/cases/IL-9999</code>" in response.content.decode()
