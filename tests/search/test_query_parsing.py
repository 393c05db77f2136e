"""Query parsing: any text becomes plain words and phrases, never backend syntax."""

from __future__ import annotations

import pytest

from incidents.search.query import Atom, parse_query


def shape(query: str):
    parsed = parse_query(query)
    return ([[a.words for a in g] for g in parsed.groups], [a.words for a in parsed.excluded])


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("nccl timeout", ([[("nccl",)], [("timeout",)]], [])),
        ('"nccl timeout" hang', ([[("nccl", "timeout")], [("hang",)]], [])),
        ('"unclosed phrase', ([[("unclosed", "phrase")]], [])),
        ("NCCL-timeout", ([[("NCCL", "timeout")]], [])),
        ("Xid:79", ([[("Xid", "79")]], [])),
        ("NCCL_IB_TIMEOUT", ([[("NCCL", "IB", "TIMEOUT")]], [])),
        ("2.18.3", ([[("2", "18", "3")]], [])),
        ("hang -nccl", ([[("hang",)]], [("nccl",)])),
        ('hang -"cuda graphs"', ([[("hang",)]], [("cuda", "graphs")])),
        ("hang NOT nccl", ([[("hang",)]], [("nccl",)])),
        ("ecc OR xid", ([[("ecc",), ("xid",)]], [])),
        ("ecc | xid hang", ([[("ecc",), ("xid",)], [("hang",)]], [])),
        ("OR ecc", ([[("ecc",)]], [])),
        ("ecc OR", ([[("ecc",)]], [])),
        ("a AND b", ([[("a",)], [("b",)]], [])),
        ("--enforce-eager", ([[("enforce", "eager")]], [])),
        ("-", ([], [])),
        ("( ) * :", ([], [])),
        ("hang 🔥", ([[("hang",)]], [])),
        ("\x00hang\x00", ([[("hang",)]], [])),
    ],
)
def test_parse(query, expected):
    assert shape(query) == expected


def test_atoms_only_hold_letters_and_digits():
    parsed = parse_query('"a"b" OR NEAR(x, y) title:z *w* \\ ;DROP')
    for atom in [*parsed.positive_atoms(), *parsed.excluded]:
        assert all(word.isalnum() for word in atom.words)
    assert Atom(("a",)) in parsed.positive_atoms()
