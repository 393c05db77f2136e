"""Searching an error code by its name, as printed (`IBV_WC_RETRY_EXC_ERR`,
`cudaErrorMemoryAllocation`), finds every published case tagged with it, although many cases
name their code only in `symptoms.error_codes`.

Only the name: a synonym in other words (`transport retry counter exceeded`) does not widen
to its code, because error codes are not among the facets whose terms widen a query
(`planning.EXPAND_FACETS`). Widening to codes was left out on purpose: a synonym such as
`Watchdog caught collective operation timeout` then became a code and lifted other cases over
the node-replacement case in the pinned triage scenario
(tests/mcp/test_triage.py::test_the_issue_s_own_scenario_puts_the_node_replacement_case_first).
"""

from __future__ import annotations

import json

import pytest

from incidents.search import search_cases
from tests.api.fixture_facts import published_documents
from tests.conftest import VOCAB_FILE

pytestmark = pytest.mark.django_db


def codes_with_cases() -> list[tuple[str, list[str]]]:
    """(name, ids of the published cases tagged with it) of every error-code term of the
    fixture vocabulary some published case carries; a case may name a code by any form."""
    terms = json.loads(VOCAB_FILE.read_text(encoding="utf-8"))["error_codes"]
    found = []
    for term in terms:
        spelled = {form.casefold() for form in [term["name"], *term.get("synonyms", [])]}
        ids = sorted(
            d["id"]
            for d in published_documents()
            if spelled & {code.casefold() for code in d["symptoms"].get("error_codes", [])}
        )
        if ids:
            found.append((term["name"], ids))
    return found


CODES = codes_with_cases()


def test_the_fixtures_tag_many_codes():
    # What the test below walks through: most of the vocabulary's codes, some on several cases.
    assert len(CODES) >= 25
    assert ("IBV_WC_RETRY_EXC_ERR", ["IL-0450", "IL-0485"]) in CODES


@pytest.mark.parametrize(("name", "tagged"), CODES, ids=[name for name, _ in CODES])
def test_a_code_s_name_finds_every_case_tagged_with_it(name, tagged):
    found = {hit.case.id for hit in search_cases(query=name, limit=100, facets=False).hits}
    assert sorted(set(tagged) - found) == []


def test_the_code_s_cases_come_first():
    # Not named among `results.terms`: those are the terms that widen a query (see above).
    results = search_cases(query="IBV_WC_RETRY_EXC_ERR", limit=10)
    assert {hit.case.id for hit in results.hits[:2]} == {"IL-0450", "IL-0485"}
