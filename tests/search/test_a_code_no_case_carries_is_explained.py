"""A query showing an error code no case carries is told what the code means and where its
page is (`code_notes`): `Xid 48` said only "No case matches this query well" (a new user's
walkthrough), though the vocabulary defines it."""

from __future__ import annotations

import pytest

from incidents.search import search_cases
from incidents.search.code_notes import UncasedCode, code_note, uncased_code_notes

pytestmark = pytest.mark.django_db

XID_48 = (
    "Xid 48 (NVIDIA driver): Double-bit ECC error: GPU memory returned data it could not correct;"
    " the GPU needs a reset, and repeats point at failing memory. No case is tagged with it yet;"
    " its page: /codes/xid-48."
)


def test_the_note_names_the_meaning_and_the_page():
    assert search_cases(query="Xid 48").notes[0] == XID_48
    pasted = search_cases(query="ncclRemoteError: A call failed possibly due to a network error").notes
    assert any(note.startswith("ncclRemoteError (NCCL): NCCL result 6:") for note in pasted)
    assert any(note.endswith("its page: /codes/nccl-remote-error.") for note in pasted)


def test_a_code_with_cases_gets_no_note():
    assert not [note for note in search_cases(query="Xid 79").notes if "/codes/" in note]


def test_a_code_without_vendor_or_meaning():
    code = UncasedCode("E42", "e42", "", "")
    assert (
        code_note(code) == "E42 is a known error code. No case is tagged with it yet; its page: /codes/e42."
    )
    assert uncased_code_notes(["E42", "E42", "Other"], {"E42": code}) == [code_note(code)]
