"""Vocabulary match patterns must run in linear time: RE2 compiles them or they are refused."""

from __future__ import annotations

import json

import pytest

from incidents.search.patterns import EXTRACTORS, pattern_problem
from incidents.vocabulary import load_vocabulary
from tests.conftest import VOCAB_FILE


@pytest.mark.parametrize(
    "pattern",
    [
        r"(a)\1",  # backreference
        r"foo(?=bar)",  # lookahead
        r"(?<!x)y",  # lookbehind
        r"(unclosed",
        "a" * 301,
        r"x*",  # matches every line
    ],
)
def test_unsafe_or_useless_patterns_are_refused(pattern):
    assert pattern_problem(pattern) is not None


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(x|x)*y", r"NVRM: Xid \(PCI:[^)]*\): 79"])
def test_patterns_catastrophic_for_backtracking_engines_are_fine_with_re2(pattern):
    assert pattern_problem(pattern) is None


def test_every_pattern_in_the_bundled_vocabulary_is_accepted():
    data = json.loads(VOCAB_FILE.read_text())
    patterns = [p for terms in data.values() for t in terms for p in t.get("patterns", [])]
    assert len(patterns) > 50
    assert [p for p in patterns if pattern_problem(p)] == []


def test_built_in_extractors_are_accepted():
    assert [e.pattern for e in EXTRACTORS if pattern_problem(e.pattern)] == []


def test_loading_a_vocabulary_with_a_backreference_reports_it(tmp_path):
    path = tmp_path / "vocab.json"
    path.write_text(
        json.dumps(
            {
                "symptom_tags": [
                    {"name": "Bad", "description": "x", "patterns": ["ok", r"(a)\1"]},
                ]
            }
        )
    )
    _, problems = load_vocabulary(path)
    assert [(p.path, p.message.split(":")[0]) for p in problems] == [
        ("$.symptom_tags[0].patterns[1]", "pattern not accepted by RE2 (linear-time matching)"),
    ]
