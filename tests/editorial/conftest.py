"""Accounts for the editorial tests: one per role, each with an API token."""

from __future__ import annotations

import shlex
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from incidents.roles import ensure_roles
from incidents.workflow import EDITOR, REVIEWER
from tests.conftest import set_throttle_rates


def make_user(username: str, *roles: str, staff: bool = True):
    groups = ensure_roles()
    user = get_user_model().objects.create_user(username, password="pw-" + username, is_staff=staff)
    for role in roles:
        user.groups.add(groups[role])
    return user


@pytest.fixture
def editor(db):
    return make_user("edna", EDITOR)


@pytest.fixture
def reviewer(db):
    return make_user("rita", REVIEWER)


@pytest.fixture
def outsider(db):
    """Signed in, staff even, but with no editorial role."""
    return make_user("otto")


def token_for(user) -> str:
    return Token.objects.get_or_create(user=user)[0].key


def api(user=None) -> APIClient:
    """An API client sending `user`'s token, as the write API wants (anonymous without one)."""
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def etag_of(client: APIClient, case_id: str) -> str:
    """The case's current ETag, read as a writer reads it before an `If-Match` write."""
    response = client.get(reverse("api:case-detail", args=[case_id]))
    assert response.status_code == 200
    return response["ETag"]


def write_case(user, method: str, route: str, case_id: str, body: dict) -> Any:
    """The API's answer to `method` ("patch", "post") of `body` at `route` ("api:case-detail",
    "api:case-status", "api:case-merge") for `case_id`, sent by `user` with the case's current
    ETag in If-Match, as a writer sends it."""
    client = api(user)
    send = getattr(client, method)
    return send(reverse(route, args=[case_id]), body, format="json", HTTP_IF_MATCH=etag_of(client, case_id))


def edit_action_items(editor, case_id: str, items: list[str]) -> None:
    """`editor` replaces the case's action items through the API (a PATCH), as an editor would."""
    edited = write_case(editor, "patch", "api:case-detail", case_id, {"action_items": items})
    assert edited.status_code == 200, edited.json()


def retract(reviewer, case_id: str, reason: str) -> None:
    """`reviewer` retracts the case through the API, saying `reason`."""
    retracted = write_case(
        reviewer, "post", "api:case-status", case_id, {"status": "retracted", "reason": reason}
    )
    assert retracted.status_code == 200, retracted.json()


def merge(reviewer, case_id: str, into: str) -> None:
    """`reviewer` merges the case into `into` through the API (no reason given)."""
    merged = write_case(reviewer, "post", "api:case-merge", case_id, {"into": into})
    assert merged.status_code == 200, merged.json()


def make_data_import_arguments() -> list[str]:
    """The arguments `make data` gives `manage.py import_cases`, its paths made absolute."""
    root = Path(settings.BASE_DIR)
    result = subprocess.run(
        ["make", "-n", "data"], cwd=root, capture_output=True, text=True, timeout=60, check=True
    )
    [line] = [line for line in result.stdout.splitlines() if "manage.py import_cases" in line]
    words = shlex.split(line)
    arguments = words[words.index("import_cases") + 1 :]
    return [a if a.startswith("-") or not (root / a).exists() else str(root / a) for a in arguments]


def run_make_data_import(capsys, *extra: str) -> str:
    """Run the import `make data` runs (with `extra` arguments); its standard output."""
    capsys.readouterr()
    call_command("import_cases", *extra, *make_data_import_arguments())
    return capsys.readouterr().out


class _FormReader(HTMLParser):
    """The values a browser would send for the first `<form method="post">` of a page."""

    def __init__(self, form_id: str | None) -> None:
        super().__init__()
        self.form_id = form_id
        self.data: dict[str, list[str]] = {}
        self._select: str | None = None
        self._textarea: str | None = None
        self._text: list[str] = []
        self._in_form = False
        self._done = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post" and not self._done:
            self._in_form = self.form_id is None or a.get("id") == self.form_id
        if not self._in_form:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = (a.get("type") or "text").lower()
            if kind in ("submit", "button", "image", "file"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            self.data.setdefault(name, []).append(a.get("value") or ("on" if kind == "checkbox" else ""))
        elif tag == "select" and name:
            self._select = name
            self.data.setdefault(name, [])
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select].append(a.get("value") or "")
        elif tag == "textarea" and name:
            self._textarea, self._text = name, []

    def handle_data(self, data):
        if self._textarea:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None
        elif tag == "textarea" and self._textarea:
            text = "".join(self._text)
            self.data.setdefault(self._textarea, []).append(text[1:] if text.startswith("\n") else text)
            self._textarea = None
        elif tag == "form" and self._in_form:
            self._in_form, self._done = False, True


def form_data(html: str, form_id: str | None = None) -> dict[str, list[str]]:
    """The first POST form's values, or those of the form with `form_id`."""
    reader = _FormReader(form_id)
    reader.feed(html)
    return reader.data


CASE_CHANGE = "admin:incidents_case_change"


def case_change_form(client, case_id: str) -> dict[str, list[str]]:
    """What the admin's change form of the case sends when saved untouched (`client` signed
    in as an editor)."""
    response = client.get(reverse(CASE_CHANGE, args=[case_id]))
    assert response.status_code == 200
    return form_data(response.content.decode(), "case_form")


@pytest.fixture
def proposal_rate(settings) -> None:
    """Proposals limited to 100 a minute, the API unlimited (a test may set its own after)."""
    set_throttle_rates(settings, {"api": None, "api-heavy": None, "proposals": "100/minute"})


SYMPTOMS = "Every rank stalled in the first all-reduce after the restart; the job logged nothing for an hour."


def write_symptoms(client, user, case_id: str | None, text: str = SYMPTOMS) -> None:
    """`user` writes what operators saw in the case's admin form and saves it: what a
    reviewer does to a new case's draft (`case_id`, a proposal's) before accepting the
    proposal, whose text is the draft's summary alone (a case is published only with its
    symptoms)."""
    assert case_id is not None
    client.force_login(user)
    data = case_change_form(client, case_id)
    data["symptoms_description"] = [text]
    response = client.post(reverse(CASE_CHANGE, args=[case_id]), data)
    assert response.status_code == 302, response.content.decode()
    client.get(response["Location"])  # shows (and so clears) the save's messages
