"""Facts about the real fixture cases read straight from their JSON files, so that API
answers are compared with a count made without the database."""

from __future__ import annotations

from collections import Counter

from django.utils.text import slugify

from tests.conftest import fixture_ids, load_fixture


def published_documents() -> list[dict]:
    documents = [load_fixture(case_id) for case_id in fixture_ids()]
    return [d for d in documents if d["status"] == "published"]


def ids_where(predicate) -> list[str]:
    """Ids of published fixture cases for which `predicate(document)` holds, sorted."""
    return sorted(d["id"] for d in published_documents() if predicate(d))


def has_symptom(name: str):
    return lambda d: name in d["symptoms"]["tags"]


def symptom_counts() -> Counter:
    return Counter(slugify(tag) for d in published_documents() for tag in d["symptoms"]["tags"])


def year_counts() -> dict[int, int]:
    return dict(sorted(Counter(int(d["published"][:4]) for d in published_documents()).items()))
