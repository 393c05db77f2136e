"""An import checks every document for text no database stores and counts past the columns'
range. The clean document is cleared in C (`validation._plainly_storable`); any other is
walked to name each problem's path. The fast answer must never clear a document the walk
faults, and the walk must still name every problem."""

from __future__ import annotations

import copy

import pytest

from incidents.problems import ImportProblem
from incidents.validation import (
    MAX_COUNT,
    LoadedDocument,
    _plainly_storable,
    _storable_problems,
    schema_problems,
)
from tests.conftest import fixture_ids, load_fixture

from ..reliability.hostile import HOSTILE_TEXT


def faulted(document: dict) -> list[tuple[str, str]]:
    return list(_storable_problems(document))


@pytest.mark.parametrize("case_id", fixture_ids())
def test_every_fixture_is_cleared_without_the_walk(case_id):
    document = load_fixture(case_id)
    assert faulted(document) == []
    assert _plainly_storable(document)


def placements(value) -> list[tuple[str, dict]]:
    """The fixture IL-0428 with `value` placed at several depths: a top-level string, a
    list item, a nested object's value, a key (a string value only), a count."""
    base = load_fixture("IL-0428")
    placed = []
    for where in ("title", "remediation", "environment.cluster", "key", "environment.node_count"):
        document = copy.deepcopy(base)
        if where == "title":
            document["title"] = value
        elif where == "remediation":
            document["remediation"] = [*document["remediation"], value]
        elif where == "environment.cluster":
            document["environment"]["cluster"] = value
        elif where == "key":
            if not isinstance(value, str):
                continue
            document["facts"] = {**document.get("facts", {}), value: "x"}
        else:
            document["environment"]["node_count"] = value
        placed.append((where, document))
    return placed


HOSTILE_VALUES = [value for _, value in HOSTILE_TEXT] + [
    MAX_COUNT,
    MAX_COUNT + 1,
    float(MAX_COUNT),
    3e9,
    1e20,
    2**64,
    -(2**70),
    "\\u0000 written out, not a NUL",
    {"nested": ["deep\x00er"]},
]


@pytest.mark.parametrize("value", HOSTILE_VALUES, ids=range(len(HOSTILE_VALUES)))
def test_the_fast_answer_agrees_with_the_walk(value):
    for where, document in placements(value):
        walked = faulted(document)
        # Cleared only when the walk finds nothing; a document the walk faults is walked.
        if _plainly_storable(document):
            assert walked == [], where


@pytest.mark.parametrize(
    ("value", "path", "message"),
    [
        ("a\x00b", "$.environment.cluster", "contains a NUL character (U+0000), which text may not hold"),
        (
            "a\ud800b",
            "$.environment.cluster",
            "contains a lone surrogate (U+D800), which is not a character",
        ),
    ],
)
def test_a_faulty_text_is_still_named_by_its_path(value, path, message):
    document = load_fixture("IL-0428")
    document["environment"]["cluster"] = value
    assert not _plainly_storable(document)
    assert ImportProblem("case.json", path, message) in schema_problems(LoadedDocument("case.json", document))


def test_a_count_past_the_column_is_named_and_one_at_the_limit_is_not():
    document = load_fixture("IL-0428")
    document["environment"]["node_count"] = MAX_COUNT
    assert _plainly_storable(document) and faulted(document) == []
    document["environment"]["node_count"] = MAX_COUNT + 1
    assert not _plainly_storable(document)
    assert faulted(document) == [
        (
            "$.environment.node_count",
            f"{MAX_COUNT + 1} is larger than the largest count stored ({MAX_COUNT})",
        )
    ]


def test_a_written_out_nul_escape_is_walked_and_passes():
    document = load_fixture("IL-0428")
    document["summary"] = "the log shows \\u0000 where the name should be"
    assert not _plainly_storable(document)  # the escape looks like a NUL to the fast answer
    assert faulted(document) == []


@pytest.mark.parametrize("count", [3e9, 1e20, float(MAX_COUNT + 1)])
def test_a_count_given_as_a_large_float_is_named(count):
    # JSON Schema's integer admits 3e9; no column holds it (PostgreSQL refused it with a raw
    # error after validation passed, SQLite stored 1e20 as a real).
    document = load_fixture("IL-0428")
    document["environment"]["accelerator_count"] = count
    assert not _plainly_storable(document)
    assert faulted(document) == [
        (
            "$.environment.accelerator_count",
            f"{count} is larger than the largest count stored ({MAX_COUNT})",
        )
    ]
    problems = schema_problems(LoadedDocument("case.json", document))
    assert "$.environment.accelerator_count" in [problem.path for problem in problems]
