"""api/API.md says what the code does of an unknown query parameter or JSON body key: a 400
naming it, with the name meant in `suggestions` (it said "a 400 naming it" only, though the
API suggests `q` for `?qq=` and `text` for `{"log": ...}` to /api/match). Each example it
gives is checked against the API."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.conf import settings

pytestmark = pytest.mark.django_db

ERRORS = next(
    " ".join(paragraph.split())
    for paragraph in (Path(settings.BASE_DIR) / "api" / "API.md").read_text(encoding="utf-8").split("\n\n")
    if paragraph.startswith("**Errors.**")
)
QUERY_EXAMPLE = re.compile(r"`\?(\w+)=` to `(/api/[^`]*)` suggests `(\w+)`")
BODY_EXAMPLE = re.compile(r'`\{"(\w+)": \.\.\.\}` to `(/api/[^`]*)` suggests `(\w+)`')


def test_it_says_an_unknown_name_is_answered_with_the_one_meant():
    assert "with the parameter meant in `suggestions`" in ERRORS
    assert QUERY_EXAMPLE.findall(ERRORS) == [
        ("qq", "/api/cases/", "q"),
        ("per_page", "/api/cases/", "page_size"),
    ]
    assert BODY_EXAMPLE.findall(ERRORS) == [
        ("logs", "/api/triage", "text"),
        ("log", "/api/match", "text"),
    ]


@pytest.mark.parametrize(("name", "path", "meant"), QUERY_EXAMPLE.findall(ERRORS))
def test_each_query_parameter_example_holds(client, name, path, meant):
    response = client.get(f"{path}?{name}=1")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["parameter"], error["suggestions"]) == (name, [meant])


@pytest.mark.parametrize(("key", "path", "meant"), BODY_EXAMPLE.findall(ERRORS))
def test_each_body_key_example_holds(client, key, path, meant):
    body = {"symptoms": "nccl hang"} if path == "/api/triage" else {}
    response = client.post(path, json.dumps({**body, key: "NCCL WARN"}), content_type="application/json")
    assert response.status_code == 400
    [error] = response.json()["errors"]
    assert (error["parameter"], error["suggestions"]) == (key, [meant])
