"""The note of a query showing an error code no published case carries (`planning.plan`).

`Xid 48` is a code the vocabulary defines (a vendor's meaning, a page at `/codes/xid-48`),
but no case shows it: search listed partial matches alike in meaning ("No case matches this
query well") and never said what the code is, nor where it is described (a new user's
walkthrough; the same for the pasted `ncclRemoteError: A call failed ...`). The note says
both: the code's meaning and its page, and that no case shows it yet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from django.urls import reverse


@dataclass(frozen=True)
class UncasedCode:
    """An error code of the vocabulary that no published case carries."""

    name: str
    slug: str
    vendor: str
    description: str


def uncased_codes(terms: Iterable) -> dict[str, UncasedCode]:
    """Name -> `UncasedCode` of the error-code terms (as `terms_with_case_counts` reads them,
    with `case_count`) that no published case carries."""
    return {
        t.name: UncasedCode(t.name, t.slug, t.vendor or "", " ".join((t.description or "").split()))
        for t in terms
        if not t.case_count
    }


def code_note(code: UncasedCode) -> str:
    """`Xid 48 (NVIDIA driver): Double-bit ECC error: ... No case is tagged with it yet; its page:
    /codes/xid-48.`"""
    vendor = f" ({code.vendor})" if code.vendor else ""
    meaning = code.description.rstrip(".")
    said = f": {meaning}." if meaning else " is a known error code."
    path = reverse("incidents:code-detail", args=[code.slug])
    return f"{code.name}{vendor}{said} No case is tagged with it yet; its page: {path}."


def uncased_code_notes(shown: Iterable[str], uncased: Mapping[str, UncasedCode]) -> list[str]:
    """The notes of the codes `shown` (names, as `CodeVocabulary.find` gives them) that no
    published case carries, in the order given."""
    return [code_note(uncased[name]) for name in dict.fromkeys(shown) if name in uncased]
