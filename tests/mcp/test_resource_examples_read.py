"""Each resource template's description gives an example URI that reads. The topic template
said `E.g. topic://training`, which answered "No topic 'training'": `training` became a
workload when the topics were re-cut into kinds of failure."""

from __future__ import annotations

import re

import pytest

from incidents.models import Facet, Term

pytestmark = pytest.mark.django_db


def test_every_templates_example_reads(mcp):
    templates = mcp.run(lambda client: client.list_resource_templates()).resource_templates
    assert len(templates) == 2
    for template in templates:
        (example,) = re.findall(r"E\.g\. (\S+)\.$", template.description)
        scheme = template.uri_template.split("{")[0]
        assert example.startswith(scheme), template.name
        assert mcp.read(example).startswith("# "), example
    examples = {t.name: t.description.rsplit("E.g. ", 1)[1] for t in templates}
    assert examples == {"incident": "incident://IL-0428.", "topic": "topic://interconnect."}


def test_a_former_topic_says_it_is_a_workload_now_as_get_topic_says_it(mcp):
    # The resource had words of its own ("No topic 'training': 'training' is a workload now
    # (list_incidents with ...). Topics: ..."), unlike the get_topic tool: one wording now.
    assert Term.objects.filter(facet=Facet.WORKLOAD, slug="training").exists()
    for slug in ("training", "Inference"):
        message = mcp.read_error(f"topic://{slug}").message
        assert message == mcp.error("get_topic", slug=slug)
    assert mcp.read_error("topic://training").message == (
        "'training' is a workload now, not a topic: call list_incidents with workload='training'; "
        "topics are kinds of failure (see vocab)."
    )
