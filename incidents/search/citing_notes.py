"""What search says of a query naming an upstream record (`NVIDIA/nccl#1405`, an issue or
status-page URL): the cases citing it are listed, and when none does, that no case cites it
and where to go on.

A pasted GitHub issue no case cites was answered "Cases citing <url> (references and
sources)." over an empty list (a new user's walkthrough, W26). Now the answer says no case
cites it yet, offers the record's words to search (its repository's name, or its site's)
and the proposal form, where a case citing it could come from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from django.urls import reverse

# Sites whose first two path parts are owner and repository.
CODE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org"})
# Host labels that name no one (`www.`, `status.`, a country or generic top-level part).
_HOST_NOISE = frozenset({"www", "status", "docs", "blog", "com", "org", "net", "io", "ai", "dev", "co", "uk"})
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*[A-Za-z0-9]")


def citing_note(references: Sequence[str]) -> str:
    """The note over the cases citing `references`: "Cases citing X (references and sources)."."""
    return f"Cases citing {', '.join(references)} (references and sources)."


def record_words(reference: str) -> str | None:
    """The word of an upstream record a reader could search instead: the repository of
    `NVIDIA/nccl#1405` or of a GitHub, GitLab or Bitbucket URL (`nccl`), else the name of a
    URL's site (`status.openai.com` -> `openai`); None when there is none (a bare number)."""
    if "://" not in reference:
        repository = reference.split("#", 1)[0].rsplit("/", 1)[-1]
        return repository if _WORD.fullmatch(repository) else None
    parts = urlsplit(reference)
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = [p for p in parts.path.split("/") if p]
    if host in CODE_HOSTS and len(path) >= 2:
        return path[1] if _WORD.fullmatch(path[1]) else None
    labels = [label for label in host.split(".") if label and label not in _HOST_NOISE]
    return labels[-1] if labels and _WORD.fullmatch(labels[-1]) else None


def uncited_note(references: Sequence[str]) -> str:
    """The note when no published case cites any of `references`, with a way on: "No case
    cites https://github.com/vllm-project/vllm/issues/1 yet (in its references or sources):
    search its words instead (vllm), or propose it as a case at /propose/." (no query)."""
    words = list(dict.fromkeys(w for w in map(record_words, references) if w))
    cited = ", ".join(references)
    instead = f"search its words instead ({', '.join(words)}), or " if words else ""
    return (
        f"No case cites {cited} yet (in its references or sources): {instead}"
        f"propose it as a case at {reverse('incidents:propose')}."
    )
