"""`SearchState`: the query string of /cases/ parsed, changed one step, written back."""

from __future__ import annotations

from django.http import QueryDict

from incidents.selectors import CaseFilters
from incidents.views.state import SearchState


def parse(query: str) -> SearchState:
    return SearchState.from_query(QueryDict(query))


def test_it_round_trips_every_part_of_the_state():
    query = (
        "q=nccl+hang&topic=training&symptom=nccl-timeout&symptom=training-hang"
        "&year=2024&exclude_component=dns&exclude_organization=Meta+AI&sort=oldest&page=3"
    )
    state = parse(query)
    assert state.q == "nccl hang"
    assert state.include == {
        "topic": ("training",),
        "symptom": ("nccl-timeout", "training-hang"),
        "year": ("2024",),
    }
    assert state.exclude == {"component": ("dns",), "organization": ("Meta AI",)}
    assert (state.sort, state.page) == ("oldest", 3)
    assert parse(state.query_string()[1:]) == state
    assert state.filters() == CaseFilters(include=state.include, exclude=state.exclude)


def test_adding_a_value_resets_the_page_and_lifts_its_exclusion():
    state = parse("exclude_symptom=loss-spike&page=4")
    added = state.adding("symptom", "loss-spike")
    assert added.include == {"symptom": ("loss-spike",)} and added.exclude == {}
    assert added.query_string() == "?symptom=loss-spike"


def test_excluding_a_value_stops_requiring_it():
    state = parse("symptom=loss-spike&symptom=ecc-error")
    assert state.excluding("symptom", "loss-spike").query_string() == (
        "?symptom=ecc-error&exclude_symptom=loss-spike"
    )


def test_removing_the_last_value_of_a_facet_drops_the_facet():
    state = parse("topic=training&year=2022")
    assert state.without_inclusion("topic", "training").include == {"year": ("2022",)}


def test_malformed_values_are_dropped():
    state = parse("year=20x4&year=2024&year=2024&topic=&page=zero&sort=upside-down&q=%00a")
    assert state.include == {"year": ("2024",)}
    assert (state.page, state.sort, state.q) == (1, "", "a")


def test_relevance_needs_a_query():
    assert parse("sort=relevance").sort == ""
    assert parse("sort=relevance").effective_sort == "newest"
    assert parse("q=ecc").effective_sort == "relevance"
    assert parse("q=ecc&sort=relevance").without_query().query_string() == ""


def test_chips_name_terms_and_remove_one_value_each():
    state = parse("symptom=nccl-timeout&exclude_year=2020")
    chips = state.chips("/cases/", {("symptom", "nccl-timeout"): "NCCL timeout"})
    assert [(c.facet_label, c.label, c.excluded, c.remove_url) for c in chips] == [
        ("Symptom", "NCCL timeout", False, "/cases/?exclude_year=2020"),
        ("Year", "2020", True, "/cases/?symptom=nccl-timeout"),
    ]


def test_a_huge_query_is_cut_and_many_values_capped():
    state = parse("q=" + "x" * 5000 + "".join(f"&component=c{i}" for i in range(50)))
    assert len(state.q) == 500
    assert len(state.include["component"]) == 20
