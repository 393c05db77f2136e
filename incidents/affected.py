"""`affected` ranges: components named by any spelling, stored spelled out.

A range names a component vocabulary term by name, slug or synonym in any letter case
(`nccl`, `NCCL`); import writes the term's name back, and every key in schema order
(`component`, `versions`, `introduced`, `fixed`, `last_affected`), so export and re-import
agree. Versions are kept as written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .models import Facet, Term
from .selectors.spelling import Typed, spelling_key
from .vocabulary import VocabularyDefinitions


@dataclass(frozen=True)
class ComponentRef:
    name: str
    slug: str


class ComponentIndex:
    """Spelling (`spelling_key`) -> component term."""

    def __init__(self, terms: Iterable[tuple[str, str, Iterable[str]]]):
        self._by_spelling: dict[str, ComponentRef] = {}
        for name, slug, synonyms in terms:
            for spelling in (slug, name, *synonyms):
                self._by_spelling.setdefault(spelling_key(spelling), ComponentRef(name, slug))
        self.names = sorted({ref.name for ref in self._by_spelling.values()}, key=str.lower)

    @classmethod
    def load(cls, definitions: VocabularyDefinitions | None = None) -> ComponentIndex:
        """Components defined in `definitions` first, then the stored ones (one query)."""
        defined = [
            (d.name, d.slug, d.synonyms)
            for d in (definitions or VocabularyDefinitions()).terms
            if d.facet == Facet.COMPONENT
        ]
        stored = Term.objects.filter(facet=Facet.COMPONENT).values_list("name", "slug", "synonyms")
        return cls([*defined, *stored])

    def resolve(self, spelling: str) -> ComponentRef | None:
        return self._by_spelling.get(spelling_key(spelling))

    def closest(self, spelling: str, n: int = 3) -> tuple[str, ...]:
        """The names of up to `n` components `spelling` may have meant: those with a spelling
        (name, slug or synonym) close to it (`selectors.spelling.closeness`: `NCCLX`: NCCL;
        `nvidia-nccl-cu14`: `nvidia-nccl-cu12`, so NCCL), then those one of its words names (`torch-nightly`:
        PyTorch), nearest first."""
        key = spelling_key(spelling)
        typed = Typed(key)
        scored = sorted((-score, k) for k in self._by_spelling if (score := typed.closeness(k)) > 0)
        names = dict.fromkeys(self._by_spelling[k].name for _, k in scored)
        for word in key.split():
            if ref := self._by_spelling.get(word):
                names.setdefault(ref.name)
        return tuple(names)[:n]


def normalised_range(item: dict[str, Any], components: ComponentIndex | None = None) -> dict[str, Any]:
    """One `affected[]` item in schema order, the component by its term's name."""
    component = item["component"]
    ref = components.resolve(component) if components else None
    return {
        "component": ref.name if ref else component,
        "versions": list(item.get("versions", [])),
        "introduced": item.get("introduced"),
        "fixed": item.get("fixed"),
        "last_affected": item.get("last_affected"),
    }
