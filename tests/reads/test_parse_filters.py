"""`parse_filters` / `parse_search`: the one reader of list parameters for every front door."""

from __future__ import annotations

import datetime

import pytest
from django.http import QueryDict

from incidents.selectors import MAX_QUERY_CHARS, parse_filters, parse_search

pytestmark = pytest.mark.django_db


def filters_of(query: str):
    return parse_filters(QueryDict(query))


@pytest.mark.parametrize(
    "spelling", ["nccl-timeout", "NCCL timeout", "nccl_timeout", "NCCL-TIMEOUT", "watchdog timeout"]
)
def test_a_slug_name_or_synonym_in_any_case_means_the_slug(spelling):
    filters, problems = parse_filters({"symptom": spelling})
    assert problems == []
    assert filters.include == {"symptom": ("nccl-timeout",)}
    assert filters.label("symptom", "nccl-timeout") == "NCCL timeout"


def test_spellings_of_one_value_count_once_and_exclusions_are_kept_apart():
    filters, problems = filters_of(
        "symptom=nccl-timeout&symptom=NCCL+timeout&symptom=hang&exclude_topic=serving&exclude_topic=inference"
    )
    assert problems == []
    assert filters.include == {"symptom": ("nccl-timeout", "training-hang")}
    # `inference` was a topic and is the workload now: the parser moves it there.
    assert filters.exclude == {"workload": ("inference",)}


def test_organizations_match_in_any_letter_case_and_years_are_checked():
    filters, problems = filters_of("organization=bigscience&year=2024&exclude_year=abc")
    assert filters.include == {"organization": ("bigscience",), "year": ("2024",)}
    assert filters.label("organization", "bigscience") == "BigScience"
    assert [(p.parameter, p.detail, p.value) for p in problems] == [
        ("exclude_year", "must be a year between 1990 and 2100", "abc")
    ]


def test_an_unknown_value_is_a_problem_with_the_nearest_values():
    filters, [problem] = filters_of("symptom=NCCL+timout")
    assert filters.include == {}
    assert (problem.parameter, problem.value, problem.facet, problem.near) == (
        "symptom",
        "NCCL timout",
        "symptom",
        True,
    )
    assert problem.detail == "unknown symptom 'NCCL timout'"
    assert problem.suggestions[0].value == "nccl-timeout"
    assert problem.message().startswith("No symptom called “NCCL timout”. Did you mean NCCL timeout")


def test_a_facet_with_few_values_lists_them_all_when_nothing_is_close():
    _, [problem] = filters_of("topic=gpus")
    assert not problem.near
    assert [c.value for c in problem.suggestions][:3] == ["checkpoint-storage", "configuration", "facility"]
    assert problem.message().startswith(
        "No topic called “gpus”. Choose from Checkpoint and storage failures, Configuration mistakes"
    )


def test_a_date_range_is_read_and_checked():
    filters, problems = filters_of("published_after=2023-01-01&published_before=2024-06-30")
    assert problems == []
    assert (filters.published_after, filters.published_before) == (
        datetime.date(2023, 1, 1),
        datetime.date(2024, 6, 30),
    )
    # An empty date is not given (`is_blank`: a form's empty field), not a bad one.
    filters, problems = filters_of("published_after=2024-13-01&published_before=")
    assert [(p.parameter, p.detail) for p in problems] == [
        ("published_after", "must be a date as YYYY-MM-DD")
    ]
    assert filters.published_before is None
    filters, [problem] = filters_of("published_after=2024-01-01&published_before=2023-01-01")
    assert problem.parameter == "published_before" and filters.published_before is None


def test_too_many_values_are_capped_with_a_problem():
    filters, [problem] = filters_of("&".join(f"year={2000 + n}" for n in range(25)))
    assert len(filters.include["year"]) == 20
    assert problem.parameter == "year" and problem.detail.startswith("at most 20 values")


def test_sort_has_one_name_and_the_apis_old_ordering_still_works():
    assert parse_search(QueryDict("sort=oldest"))[0].sort == "oldest"
    assert parse_search(QueryDict("ordering=-published"))[0].sort == "newest"
    assert parse_search(QueryDict("sort=newest&ordering=-published"))[1] == []
    search, [problem] = parse_search(QueryDict("sort=olderst"))
    assert (search.sort, problem.parameter, problem.suggestions[0].value) == ("", "sort", "oldest")
    # Best match needs a query: without one it is the default order, not a problem.
    search, problems = parse_search(QueryDict("sort=relevance"))
    assert (search.sort, search.effective_sort, problems) == ("", "newest", [])


def test_the_query_has_one_length_limit():
    search, problems = parse_search(QueryDict("q=" + "x" * MAX_QUERY_CHARS))
    assert (len(search.q), problems) == (MAX_QUERY_CHARS, [])
    # One more and it is refused whole: a cut query would search words never sent.
    search, [problem] = parse_search(QueryDict("q=" + "x" * (MAX_QUERY_CHARS + 1)))
    assert search.q == ""
    assert (problem.parameter, problem.detail, problem.value) == (
        "q",
        f"must be at most {MAX_QUERY_CHARS} characters long; it has {MAX_QUERY_CHARS + 1} (a log or a"
        " traceback goes to log matching: the /match/ page, POST /api/match, MCP match_log or"
        " triage's text)",
        None,
    )


def test_tool_arguments_parse_like_query_strings():
    filters, problems = parse_filters({"symptom": ["Training hang", "NCCL timeout"], "year": 2023})
    assert problems == []
    assert filters.include == {"symptom": ("training-hang", "nccl-timeout"), "year": ("2023",)}


def test_no_filter_costs_no_query_and_term_filters_one(django_assert_num_queries):
    with django_assert_num_queries(0):
        parse_search(QueryDict("q=hang&sort=newest&year=2024"))
    with django_assert_num_queries(1):
        parse_filters(QueryDict("symptom=hang&exclude_topic=inference&root_cause=bug"))
    # Organizations and accelerators are term facets: the same one query reads them.
    with django_assert_num_queries(1):
        parse_filters(QueryDict("organization=Meta&accelerator=a100&symptom=hang"))


def test_term_filters_carry_the_term_ids_and_filter_by_them():
    from incidents.models import Case, Term
    from incidents.selectors import filter_cases

    filters, problems = filters_of("topic=training&symptom=NCCL+timeout&exclude_component=deepspeed")
    assert problems == []
    expected = {
        ("workload", "training"): Term.objects.get(facet="workload", slug="training").id,
        ("symptom", "nccl-timeout"): Term.objects.get(facet="symptom", slug="nccl-timeout").id,
        ("component", "deepspeed"): Term.objects.get(facet="component", slug="deepspeed").id,
    }
    assert filters.term_ids == expected
    sql = str(filter_cases(Case.objects.published(), filters).query)
    # By term id (PostgreSQL estimates those from its statistics), not a join on the slug.
    assert '"incidents_term"' not in sql
    assert sql.count('"term_id" IN') == 3
    # ... and the same cases as the join on the slug that a filter built by hand still uses.
    by_slug = filter_cases(
        Case.objects.published(), type(filters)(include=filters.include, exclude=filters.exclude)
    )
    assert '"incidents_term"' in str(by_slug.query)
    assert sorted(by_slug.values_list("id", flat=True)) == sorted(
        filter_cases(Case.objects.published(), filters).values_list("id", flat=True)
    )
    assert by_slug.exists()
