"""`profiles.word_counts`, what a duplicate check probes a document's account with, is the
`counts` of its text profile and of the profile stored for the same case."""

from __future__ import annotations

import pytest

from incidents.duplicates import document_text
from incidents.search.models import CaseProfile
from incidents.search.profiles import text_profile, word_counts
from tests.conftest import fixture_ids, load_fixture

pytestmark = pytest.mark.django_db


def test_the_counts_of_the_profile_stored_for_every_fixture():
    stored = dict(CaseProfile.objects.values_list("case_id", "counts"))
    compared = 0
    for case_id in fixture_ids():
        text = document_text(load_fixture(case_id))
        counts = word_counts(text)
        assert list(counts.items()) == list(text_profile("", {}, [text]).counts.items())
        if case_id in stored:
            assert dict(counts) == stored[case_id], case_id
            compared += 1
    assert compared > 100


@pytest.mark.parametrize(
    "text", ["", "   ", "Hangs hanging hanged NCCL nccl 42 a of", "é café CAFÉ x_y foo-bar"]
)
def test_odd_texts(text):
    assert word_counts(text) == text_profile("", {}, [text]).counts
