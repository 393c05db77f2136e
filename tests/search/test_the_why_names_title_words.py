"""A hit's `why` names the query's words its title holds after those of its passage: IL-0497
(an Arm compare-and-swap bug in NCCL) is first for `training hangs after a node swap` on
`swap`, in its title's `compare-and-swap`, and its `why` said only "Matches: nodes.", not the
word that ranked it."""

from __future__ import annotations

import pytest

from incidents.search import search_cases

pytestmark = pytest.mark.django_db

NODE_SWAP = "training hangs after a node swap"


def test_the_why_names_the_title_word_that_matched():
    first = search_cases(query=NODE_SWAP, limit=10, facets=False).hits[0]
    assert first.case.id == "IL-0497"
    # `swap` is in IL-0497's title only as `compare-and-swap`; its passage shows another word
    # (`nodes` on SQLite, `Training` on PostgreSQL: each database cuts its own passage); the
    # query's words its body holds outside both follow (`why_words.typed_words_held`).
    assert first.why in (
        "Matches: nodes, swap, training hangs.",
        "Matches: Training, swap, training hangs, node.",
    )
