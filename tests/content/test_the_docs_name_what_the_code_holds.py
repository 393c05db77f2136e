"""What the README and the API description say matches the project: a file they name is in
the repository (the README pointed at `../shared/spec/case.schema.json`, outside it, for the
schema the project keeps at `incidents/case.schema.json`), and the endpoints they put under
the heavy rate are those the code counts against it (API.md left `/api/triage` out)."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.urls import URLPattern, get_resolver

from api.throttling import HEAVY_SCOPE

BASE = Path(settings.BASE_DIR)
# A file path in backticks: a folder and a name with an extension (`eval/run.py`).
NAMED_FILE = re.compile(r"`([^`\s/][^`\s]*/[^`\s]+\.(?:json|py|md|toml|sh|lua|html|css|js))`")


# The README and the documents moved out of it (docs/, 8 December 2026).
MOVED = ("api", "configuration", "editing", "importing", "search", "evaluation")
DOCUMENTS = ["README.md", *(f"docs/{name}.md" for name in MOVED)]


def test_every_file_the_readme_names_is_in_the_repository():
    named = {p for doc in DOCUMENTS for p in NAMED_FILE.findall((BASE / doc).read_text(encoding="utf-8"))}
    assert "incidents/case.schema.json" in named
    outside = sorted(p for p in named if not (BASE / p).resolve().is_relative_to(BASE.resolve()))
    missing = sorted(p for p in named if not (BASE / p).is_file())
    assert (outside, missing) == ([], [])


def heavy_paths() -> list[str]:
    """`/api/<route>` of every API view counted against the heavy rate."""
    paths = []
    for pattern in get_resolver().url_patterns:
        if getattr(pattern, "namespace", None) != "api":
            continue
        for route in pattern.url_patterns:
            view = getattr(route.callback, "cls", None) if isinstance(route, URLPattern) else None
            if view is not None and getattr(view, "throttle_scope", None) == HEAVY_SCOPE:
                paths.append(f"/api/{route.pattern}")
    return sorted(paths)


def test_the_api_description_names_every_endpoint_under_the_heavy_rate():
    assert heavy_paths() == ["/api/export", "/api/match", "/api/triage"]
    description = (BASE / "api" / "API.md").read_text(encoding="utf-8")
    [limits] = [p for p in description.split("\n\n") if p.startswith("**Rate limits.**")]
    heavy = re.search(r"`api-heavy` \(([^)]*)\)", " ".join(limits.split()))
    assert heavy is not None
    assert sorted(re.findall(r"`(/api/[a-z]+)`", heavy[1])) == heavy_paths()
