"""An unknown case id is answered with the closest ids only when it looks like an id (a
digit, at most `MAX_CASE_ID_CHARS` characters: `spelling.looks_like_case_id`), at every
door. Words (`/cases/nccl-timeout-hang`, `get_incident {"id": "nope"}`) were offered the
newest ids, which mean nothing; and a long path cost the 404 page time growing with its
length (5,000 characters: 5 s), matching it against every id and every term spelling."""

from __future__ import annotations

import re
import time

import pytest

from incidents.selectors import closest_terms, find_case, find_published_case
from incidents.selectors.spelling import MAX_CASE_ID_CHARS, closest_case_ids, looks_like_case_id
from tests.mcp.conftest import InMemoryMcp
from tests.web.html import links, text_of

pytestmark = pytest.mark.django_db

WORDS = ["nccl-timeout-hang", "nope", "IL-ABCD"]


def case_links(html: str) -> list[str]:
    return [href for href, _ in links(html) if re.fullmatch(r"/cases/IL-\d+", href)]


@pytest.mark.parametrize("words", WORDS)
def test_words_name_no_case_id_at_any_door(client, words):
    assert find_case(words).closest == []
    assert find_published_case(words).closest == []
    page = client.get(f"/cases/{words}")
    assert page.status_code == 404
    assert case_links(page.content.decode()) == []
    assert "Closest case ids" not in text_of(page.content.decode())
    api = client.get(f"/api/cases/{words}")
    assert api.status_code == 404
    assert "suggestions" not in str(api.json())
    assert InMemoryMcp().error("get_incident", id=words) == (
        f"No incident {words!r}: ids look like IL-0428. "
        "To find incidents by what happened, use search_incidents."
    )


def test_a_term_among_the_words_is_still_suggested(client):
    html = client.get("/cases/nccl-timeout-hang").content.decode()
    assert ("/vocab/symptom/nccl-timeout", "NCCL timeout") in links(html)


def test_an_id_with_a_slip_still_names_the_closest():
    assert looks_like_case_id("IL-9428") and looks_like_case_id("il 428x")
    assert find_case("IL-9428").closest[0] == "IL-0428"
    assert closest_case_ids("nothing", ["IL-0428", "IL-0431"]) == []


def test_text_longer_than_an_id_is_no_id_and_costs_no_query(django_assert_num_queries):
    too_long = "IL-0428" + "8" * (MAX_CASE_ID_CHARS - 6)
    assert not looks_like_case_id(too_long)
    with django_assert_num_queries(0):
        assert find_case(too_long).closest == []
        assert find_published_case(too_long).closest == []
        assert closest_terms("nccl-timeout " * 100) == []


@pytest.mark.parametrize("path", ["/cases/{}", "/topics/{}", "/vocab/symptom/{}", "/codes/{}"])
def test_a_long_path_is_answered_at_once_at_every_door(client, path):
    # 20,000 characters took 17 s on the case page; the API answered in 9 ms.
    junk = "A" * 20_000
    started = time.perf_counter()
    page = client.get(path.format(junk))
    assert page.status_code == 404
    assert time.perf_counter() - started < 2
    assert case_links(page.content.decode()) == []
    # No search link for text the search would refuse (over 500 characters).
    assert not [href for href, _ in links(page.content.decode()) if href.startswith("/cases/?q=")]
    assert client.get(f"/api/cases/{junk}1").status_code == 404
    message = InMemoryMcp().error("get_incident", id=junk)
    assert message.startswith(f"Invalid arguments: id is too long: at most {MAX_CASE_ID_CHARS} ")


def test_term_suggestions_stay_quick_for_text_up_to_a_filter_value():
    # 200 characters (the longest filter value the parser reads) were matched against every
    # term spelling in time growing with the product of the lengths: about 0.4 s a page.
    started = time.perf_counter()
    for _ in range(10):
        closest_terms("B" * 200)
    assert time.perf_counter() - started < 1
