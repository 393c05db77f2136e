"""Within one facet, a spelling (name, slug or synonym, compared as the parser compares
them) names one term: "DCGM" was both a component and a synonym of "NVIDIA driver", and
"wrong results" both a symptom and a synonym of "Silent data corruption", so a filter or a
case's component list could resolve to either. Across facets a shared spelling is
intended (the error code `ncclSystemError` and the symptom NCCL error it is listed under)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from incidents.selectors.spelling import spelling_key
from incidents.vocabulary import load_vocabulary

VOCAB = Path(__file__).resolve().parents[2] / "fixtures" / "vocab.json"


def test_no_spelling_names_two_terms_of_one_facet():
    definitions, problems = load_vocabulary(VOCAB)
    assert problems == []
    owners: dict[tuple[str, str], set[str]] = defaultdict(set)
    for term in definitions.terms:
        for spelling in term.spellings:
            owners[(str(term.facet), spelling_key(spelling))].add(term.name)
    shared = {key: names for key, names in owners.items() if len(names) > 1}
    assert shared == {}
