"""A case's child rows are named by what they hold (a term, a source, a scale table, a link),
in the admin's inlines and wherever Django shows a row, not "CaseTerm object (1)"."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from incidents.models import CaseKey, CaseRelation, CaseTerm, ScaleColumn, ScaleRow, ScaleTable, Source
from tests.conftest import load_fixture

pytestmark = pytest.mark.django_db


def test_the_case_page_of_the_admin_names_every_inline_row(client, editor):
    document = load_fixture("IL-0428")
    client.force_login(editor)
    page = client.get(reverse("admin:incidents_case_change", args=["IL-0428"])).content.decode()
    assert not re.search(r"\w+ object \(\d+\)", page)
    first = document["sources"][0]
    rows = [
        html.unescape(name.strip())
        for name in re.findall(r'<td class="original">\s*<p>(.*?)(?:<a |</p>)', page, flags=re.DOTALL)
    ]
    assert f"{first['title']} ({first['url']})" in rows
    assert "Symptom tag: Training hang" in rows
    assert document["scale_tables"][0]["caption"] in rows
    assert [row for row in rows if "→" in row] == [f"IL-0428 → {target}" for target in document["related"]]


def test_every_child_row_has_a_name_of_its_own():
    term_link = CaseTerm.objects.select_related("term").filter(case_id="IL-0428").first()
    assert str(term_link) == f"{term_link.term.get_facet_display()}: {term_link.term.name}"
    untitled = Source(case_id="IL-0428", position=9, url="https://example.org/a")
    assert str(untitled) == "https://example.org/a"
    assert str(CaseRelation(source_id="IL-0428", target_id="IL-0431", position=0)) == "IL-0428 → IL-0431"
    assert str(CaseKey(case_id="IL-0428", kind="reference", key="NVIDIA/nccl#1116")) == (
        "Reference: NVIDIA/nccl#1116"
    )
    long = ScaleTable(case_id="IL-0428", position=0, caption="Which configurations hung " * 10)
    assert len(str(long)) == 80 and str(long).endswith("…")
    assert str(ScaleColumn(key="gpus", label="GPUs", unit="count", position=0)) == "GPUs (count)"
    assert str(ScaleRow(values={"gpus": 512}, outcome="failed", position=0)) == "gpus=512: failed"
