"""Every example of the search page's "How to search" finds cases in the bundled library.

The help gave `cudaErrorIllegalAddress` as an error code to search for, and no case carries
it (a new user's walkthrough; the word search finds it only as a synonym of the "CUDA error"
symptom), and `exitcode -110`, which nothing holds. Each query the help shows (in `<code>`;
the `OR` operator named alone is no query) now finds at least one case, and each error code
it names is one a published case carries.
"""

from __future__ import annotations

import re
from html import unescape

import pytest

from incidents.models import Case, Facet
from incidents.selectors.vocabulary import find_term

from .html import element

pytestmark = pytest.mark.django_db

OPERATORS = {"OR"}  # named in the help as a word to type, not a query of its own


def help_examples(client, item: str = "") -> list[str]:
    """The queries of the help (of its `<li>` starting with `item`, if given)."""
    html = client.get("/cases/").content.decode()
    box = element(html, "details", class_="search-help")
    if item:
        box = re.search(rf"<li>{re.escape(item)}.*?</li>", box).group(0)
    return [unescape(code) for code in re.findall(r"<code>(.*?)</code>", box) if code not in OPERATORS]


def total(client, query: str) -> int:
    html = client.get("/cases/", {"q": query}).content.decode()
    count = re.search(r'<p id="result-count" class="lede">\s*(.*?)</p>', html, re.S).group(1)
    found = re.search(r"(?:of )?(\d+) cases? matching", count)
    return int(found.group(1)) if found else 0


def test_the_help_has_its_examples(client):
    examples = help_examples(client)
    assert '"out of memory"' in examples
    assert "NCCL_IB_TIMEOUT" in examples
    assert len(examples) >= 8


def test_every_help_example_finds_a_case(client):
    assert [query for query in help_examples(client) if total(client, query) == 0] == []


def test_every_error_code_of_the_help_is_one_a_case_carries(client):
    codes = [
        (example, find_term(Facet.ERROR_CODE, example))
        for example in help_examples(client, "Error codes as printed work")
    ]
    named = [(example, term) for example, term in codes if term is not None]
    assert {example for example, _ in named} >= {"Xid 79"}
    carried_by_none = [
        example
        for example, term in named
        if not term.case_links.filter(case__status=Case.Status.PUBLISHED).exists()
    ]
    assert carried_by_none == []
