"""The note of a query that is a version (`nccl 2.18.1`, `535.104.05`): where to check it.

Search ranks words, and a version is matched by no case's words (`2.18.1` found nothing;
`nccl 2.18.1` a case on the word NCCL alone), while "Am I affected?" lists the cases whose
`affected` ranges hold that version (a new user's walkthrough, W36). A query that is a
component and its version, or a version alone, gets a note pointing there: the page with
the version filled in, its API and its MCP tool.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

from django.urls import reverse

from ..affected import ComponentIndex
from ..versions import parse_version

# A version as people type one: dotted numbers (one dot at least: `79` is an Xid, `2024` a
# year), an optional `v`, a local or pre-release tail (`2.1.0+cu121`, `2.18.3-1`).
_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)+(?:[-+.]?[0-9A-Za-z]+)*")
# Between a component and its version: `==`, `=`, `:` or spaces (`torch==2.1.0`, `nccl 2.18.1`).
_PAIR = re.compile(r"(?P<component>[^=:]+?)\s*(?:==|=|:|\s)\s*(?P<version>\S+)")
MAX_COMPONENT_WORDS = 4  # `NVIDIA driver`, `NVIDIA Container Toolkit`: a longer text is prose
TOOL = "am_i_affected"


def version_note(query: str) -> str | None:
    """The note for `query` when it is a version alone or a component term (name, slug or
    synonym, pip's names too: `nvidia-nccl-cu12`) and its version; None otherwise. One query
    (the component terms) for a query of a name and a dotted version, none for the others.

    `nccl 2.18.1` -> "“nccl 2.18.1” looks like a version of NCCL: the cases whose affected
    ranges hold it are listed by Am I affected?: /affected/?versions=NCCL+2.18.1 (API: POST
    /api/affected; MCP: am_i_affected)."."""
    text = " ".join(query.split())
    page = reverse("incidents:affected")
    where = f"(API: POST {reverse('api:affected')}; MCP: {TOOL})"
    if _VERSION.fullmatch(text) and parse_version(text) is not None:
        return (
            f"{text} looks like a version: Am I affected? lists the cases whose affected ranges "
            f"hold it, written with its component (NCCL 2.19.3, NVIDIA driver 535.104.05, one a "
            f"line) at {page} {where}."
        )
    pair = _PAIR.fullmatch(text)
    if pair is None:
        return None
    component, version = pair["component"].strip(), pair["version"]
    if (
        len(component.split()) > MAX_COMPONENT_WORDS
        or not _VERSION.fullmatch(version)
        or parse_version(version) is None
    ):
        return None
    ref = ComponentIndex.load().resolve(component)
    if ref is None:
        return None
    link = f"{page}?{urlencode({'versions': f'{ref.name} {version}'})}"
    return (
        f"“{text}” looks like a version of {ref.name}: Am I affected? lists the cases whose "
        f"affected ranges hold it: {link} {where}."
    )
