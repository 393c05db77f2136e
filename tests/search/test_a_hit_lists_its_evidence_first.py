"""A log hit lists the lines that carry its evidence before the lines that only name a
component: a job's log opens with NCCL's INFO lines and torchrun's banner, which name NCCL or
PyTorch and nothing else, and listed by line number they filled a hit's places, so MCP's
`match_log` (five lines a hit) showed an assistant `NCCL version 2.19.3` and never the
watchdog's timeout (found by a new user walking the README on 6 December)."""

from __future__ import annotations

from pathlib import Path

import pytest

from incidents.models import Facet, Term
from incidents.search import read_log
from mcp_server import tools

pytestmark = pytest.mark.django_db

LOG = (Path(__file__).parent / "logs" / "nccl-info-then-watchdog.log").read_text(encoding="utf-8")
WATCHDOG = "Watchdog caught collective operation timeout"


def components() -> set[str]:
    return set(Term.objects.filter(facet=Facet.COMPONENT).values_list("name", flat=True))


def test_each_hit_lists_its_signature_lines_first_each_group_in_line_order():
    reading = read_log(LOG, limit=3)
    assert reading.hits
    named_only = components()
    for hit in reading.hits:
        context = [all(term in named_only for term in line.terms) for line in hit.lines]
        assert context == sorted(context), hit.case.id  # no signature line after a context one
        assert any(context) and not all(context), hit.case.id  # this log has both kinds
        for group in (True, False):
            numbers = [line.line_number for line, c in zip(hit.lines, context, strict=True) if c is group]
            assert numbers == sorted(numbers)
        assert WATCHDOG in hit.lines[0].line
        assert hit.lines[0].line_number == 10  # the first watchdog line, not line 1


def test_mcp_match_log_shows_the_watchdog_line_among_a_hits_first_lines():
    answer = tools.match_log(text=LOG, limit=3).model_dump()
    text = {line["line_number"]: line["line"] for line in answer["lines"]}
    assert answer["hits"]
    for hit in answer["hits"]:
        numbers = [line["line_number"] for line in hit["matched_lines"]]
        assert numbers[0] == 10 and WATCHDOG in text[10], hit["id"]
        assert not any(text[n].startswith("gpu-node-017") for n in numbers), hit["id"]  # NCCL INFO
